import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  AppError,
  ErrorCode,
  invalidJson,
  isAppError,
  notFound,
  payloadTooLarge,
  serviceUnavailable,
} from "../errors.js";
import type { HealthMonitor } from "./health.js";

declare module "fastify" {
  interface FastifyInstance {
    /** What the health checks report; told of storage failures here and of committed writes by the guard. */
    health: HealthMonitor;
  }
}

/** The spec's failure envelope for a deliberate failure. */
export function failBody(error: AppError) {
  return {
    status: "fail" as const,
    message: error.message,
    error: {
      statusCode: error.statusCode,
      name: error.name,
      code: error.code,
      ...(error.hint === undefined ? {} : { hint: error.hint }),
    },
  };
}

/** Turns whatever was thrown into an AppError the client may see, or undefined for an unexpected failure. */
function classify(error: unknown, bodyLimit: number, health: HealthMonitor): AppError | undefined {
  if (isAppError(error)) return error;
  const storage = health.failureOf(error);
  if (storage) return serviceUnavailable(error, storage);
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return payloadTooLarge(bodyLimit);
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return invalidJson("Invalid Content-Length");
  }
  // Content types and JSON are judged by ReceivedBody (after authentication), not by Fastify.
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    return new AppError(ErrorCode.BAD_REQUEST, status, fastifyError.message ?? "Bad request");
  }
  return undefined;
}

/**
 * Requests Node cannot even parse (malformed HTTP, headers over the size limit) never reach
 * Fastify: answer them in the fail envelope too, then close the connection.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
  const status = tooLarge ? 431 : 400;
  const failure = new AppError(
    ErrorCode.BAD_REQUEST,
    status,
    tooLarge ? "Request headers are too large" : "Malformed HTTP request",
  );
  const body = JSON.stringify(failBody(failure));
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Errors Fastify raises before any hook (a path it cannot decode): a 400 in the envelope, and the
 * "request completed" line that the onResponse hook, which never runs for them, would have logged.
 */
export function answerFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  const failure = new AppError(ErrorCode.BAD_REQUEST, 400, `Malformed request: ${error.message}`);
  reply.header("x-request-id", request.id).code(400).send(failBody(failure));
  // No route to name, so the path: without its query (values may be secret), truncated.
  request.log.info(
    {
      method: request.method,
      url: (request.url.split("?")[0] ?? "/").slice(0, 200),
      route: "(no route)",
      statusCode: 400,
      remoteAddress: request.ip,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
    },
    "request completed",
  );
}

/** The one place where errors become responses. */
export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    // A client that went away mid-body surfaces as ECONNRESET, like a lost database: it is the
    // client's doing, never a storage failure (nor a reason to mark the service degraded).
    const clientGone = request.raw.readableAborted;
    const known = clientGone
      ? new AppError(
          ErrorCode.BAD_REQUEST,
          400,
          "The client closed the connection before the request was complete",
        )
      : classify(error, bodyLimit, request.server.health);
    const storage = clientGone ? undefined : request.server.health.failureOf(known?.cause ?? error);
    if (storage) request.server.health.noteFailure(storage);
    if (!known) {
      request.log.error({ err: error }, "unexpected failure");
      return reply.code(500).send({
        status: "fail",
        error: `Internal server error (request id ${request.id})`,
        requestId: request.id,
      });
    }
    request.failureCode = known.code;
    if (known.statusCode >= 500) {
      request.log.error({ err: known.cause ?? known, code: known.code }, known.message);
      if (known.retryAfterSeconds !== undefined) reply.header("retry-after", String(known.retryAfterSeconds));
    }
    return reply.code(known.statusCode).send(failBody(known));
  });

  app.setNotFoundHandler((request, reply) => {
    const error = notFound(request.method, (request.url.split("?")[0] ?? "/").slice(0, 200));
    return reply.code(404).send(failBody(error));
  });
}
