import type { FastifyInstance, FastifyRequest } from "fastify";
import secureJsonParse from "secure-json-parse";
import { type AppError, invalidJson, unsupportedMediaType } from "../errors.js";

/** How deeply a body's arrays and objects may nest. The API's bodies are flat objects. */
export const MAX_JSON_DEPTH = 32;

/**
 * True when the JSON text nests arrays and objects deeper than `max` (brackets inside strings
 * do not count). A linear scan with no recursion, run before parsing, so that no later step
 * (parsing, re-serialising for the signature) ever recurses deeply.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * A request body as received: its exact bytes (the signature covers them) and either the parsed
 * JSON object or the reason it is not one. Problems are held back, not thrown, so that
 * authentication runs first and an unauthenticated caller learns nothing about body rules.
 */
export class ReceivedBody {
  private constructor(
    readonly raw: Buffer,
    readonly value: Record<string, unknown> | undefined,
    readonly problem: AppError | undefined,
  ) {}

  static parse(contentType: string | undefined, raw: Buffer): ReceivedBody {
    if (!isJsonContentType(contentType)) return new ReceivedBody(raw, undefined, unsupportedMediaType());
    if (raw.length === 0) return new ReceivedBody(raw, {}, undefined);
    let text: string;
    try {
      text = utf8.decode(raw);
    } catch {
      return new ReceivedBody(raw, undefined, invalidJson("Request body is not valid UTF-8"));
    }
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return new ReceivedBody(
        raw,
        undefined,
        invalidJson(`Request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`),
      );
    }
    let parsed: unknown;
    try {
      parsed = secureJsonParse(text, null, { protoAction: "error", constructorAction: "error" });
    } catch (error) {
      const forbidden = error instanceof SyntaxError && /forbidden prototype property/.test(error.message);
      const message = forbidden
        ? "Request body must not contain __proto__ or constructor.prototype keys"
        : "Request body is not valid JSON";
      return new ReceivedBody(raw, undefined, invalidJson(message));
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      return new ReceivedBody(raw, undefined, invalidJson("Request body must be a JSON object"));
    }
    return new ReceivedBody(raw, parsed as Record<string, unknown>, undefined);
  }

  private compactJson: string | undefined;

  /** The parsed body re-serialised compactly (computed once), or undefined when it did not parse. */
  compact(): string | undefined {
    if (this.value && this.compactJson === undefined) this.compactJson = JSON.stringify(this.value);
    return this.compactJson;
  }

  /** The body as a JSON object, or the held-back problem. */
  object(): Record<string, unknown> {
    if (this.problem) throw this.problem;
    return this.value ?? {};
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [type, ...parameters] = contentType.split(";").map((part) => part.trim().toLowerCase());
  if (type !== "application/json") return false;
  return parameters.every(
    (p) => !p.startsWith("charset=") || p === "charset=utf-8" || p === 'charset="utf-8"',
  );
}

declare module "fastify" {
  interface FastifyRequest {
    /** The Content-Type header as received, judged after authentication (see setAsideContentType). */
    declaredContentType?: string | undefined;
  }
}

/** What Fastify is shown instead of the client's Content-Type (a valid type no parser claims). */
const SET_ASIDE = "application/x-vas-set-aside";

/**
 * Fastify refuses a Content-Type it cannot parse (`a/b/c`) before any hook of ours, so the header
 * is set aside when the request arrives (the front door's first hook) and judged with the body,
 * after authentication.
 */
export function setAsideContentType(request: FastifyRequest): void {
  const declared = request.headers["content-type"];
  // Fastify refuses a QUERY without a Content-Type (RFC 10008) before it answers for the route;
  // no route takes QUERY, so it is set aside too and the method is a 404 like any other unknown.
  if (declared === undefined && request.method !== "QUERY") return;
  request.declaredContentType = declared;
  request.headers["content-type"] = SET_ASIDE;
}

/** Replaces Fastify's parsers with one that captures every body as a ReceivedBody. */
export function captureBodies(app: FastifyInstance, bodyLimit: number): void {
  app.decorateRequest("declaredContentType", undefined);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit }, (request, raw, done) => {
    done(null, ReceivedBody.parse(request.declaredContentType, raw as Buffer));
  });
}

/** The request's body, or undefined when it had none (GET, or a POST without a body). */
export function receivedBody(request: FastifyRequest): ReceivedBody | undefined {
  return request.body instanceof ReceivedBody ? request.body : undefined;
}
