// The rules for headers a client may send besides the signing ones: enforced by the app and the
// replay guard, and described by the OpenAPI document from these same expressions.

/** An Idempotency-Key: 1 to 255 visible ASCII characters (400 INVALID_IDEMPOTENCY_KEY otherwise). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** An x-request-id the server reuses as its own (any other is replaced by a UUID). */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
