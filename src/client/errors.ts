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
