/** A `fail` answer from the API, or a request that could not be completed. */
export class VasApiError extends Error {
  override readonly name = "VasApiError";
  constructor(
    /** HTTP status; 0 when no answer was received (network failure). */
    readonly status: number,
    /** The stable error code (`INVALID_SIGNATURE`, `VALIDATION_FAILED`, ...), or `NETWORK_ERROR`/`INTERNAL`. */
    readonly code: string,
    message: string,
    /** The server's request id, for support. */
    readonly requestId: string | undefined,
    /** The parsed response body, when there was one. */
    readonly body: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface FailBody {
  status?: unknown;
  message?: unknown;
  error?: unknown;
  requestId?: unknown;
}

/** Builds the error for a non-2xx answer: the spec's `fail` envelope or the 500 shape. */
export function errorFromResponse(status: number, body: unknown, requestId: string | undefined): VasApiError {
  const fail = (body ?? {}) as FailBody;
  const error = fail.error as { code?: unknown } | string | undefined;
  if (typeof error === "string") {
    return new VasApiError(
      status,
      "INTERNAL",
      error,
      typeof fail.requestId === "string" ? fail.requestId : requestId,
      body,
    );
  }
  const code = typeof error?.code === "string" ? error.code : `HTTP_${status}`;
  const message = typeof fail.message === "string" ? fail.message : `HTTP ${status}`;
  return new VasApiError(status, code, message, requestId, body);
}

/** What the usual system and undici codes of a failed connection mean, in words. */
const CAUSES: Record<string, string> = {
  ECONNREFUSED: "connection refused: nothing listens there",
  ENOTFOUND: "host not found (DNS)",
  EAI_AGAIN: "DNS lookup failed (temporary: no answer from the DNS server)",
  ECONNRESET: "connection reset",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_SOCKET: "connection closed before the answer",
  UND_ERR_HEADERS_TIMEOUT: "timed out waiting for the answer's headers",
  UND_ERR_BODY_TIMEOUT: "timed out reading the answer",
};

/** The innermost error with a `code` (fetch wraps the system error as `cause`), or the innermost one. */
function rootCause(error: unknown): { code?: string; message: string } {
  let current = error;
  let deepest: { code?: string; message: string } = { message: String(error) };
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return { code, message: current.message };
    deepest = { message: current.message };
    // Node reports several addresses tried (IPv6 and IPv4) as one AggregateError.
    current = current.cause ?? (current instanceof AggregateError ? current.errors[0] : undefined);
  }
  return deepest;
}

/**
 * The error for a request that got no answer, naming what was called and why it failed:
 * `GET https://vas.example.com/api/v1/external/account/list failed: connection refused: nothing
 * listens there (ECONNREFUSED)` rather than fetch's bare `fetch failed`.
 */
export function networkError(
  request: string,
  failure: unknown,
  context: { attempts: number; timeoutMs: number },
): VasApiError {
  let reason: string;
  if (failure instanceof Error && failure.name === "TimeoutError") {
    reason = `timed out: no answer within ${context.timeoutMs} ms (TimeoutError)`;
  } else {
    const cause = rootCause(failure);
    const described = cause.code === undefined ? undefined : CAUSES[cause.code];
    reason = cause.code === undefined ? cause.message : `${described ?? cause.message} (${cause.code})`;
  }
  const tries = context.attempts > 1 ? ` after ${context.attempts} attempts` : "";
  return new VasApiError(0, "NETWORK_ERROR", `${request} failed${tries}: ${reason}`, undefined, undefined, {
    cause: failure,
  });
}
