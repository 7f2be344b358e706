import assert from "node:assert/strict";

interface JsonResponse {
  statusCode: number;
  json(): unknown;
}

interface FailBody {
  status: string;
  message: string;
  error: { statusCode: number; name: string; code: string };
}

/** A response in the spec's `fail` envelope, with this status and this exact message. */
export function assertFailMessage(response: JsonResponse, status: number, message: string): void {
  assert.equal(response.statusCode, status, JSON.stringify(response.json()));
  const body = response.json() as FailBody;
  assert.equal(body.status, "fail");
  assert.equal(body.message, message);
  assert.equal(body.error.statusCode, status);
}

/** A response in the spec's `fail` envelope, with this status and this error code. */
export function assertFailCode(response: JsonResponse, status: number, code: string): void {
  assert.equal(response.statusCode, status, JSON.stringify(response.json()));
  const body = response.json() as FailBody;
  assert.equal(body.status, "fail");
  assert.equal(body.error.code, code);
  assert.equal(typeof body.message, "string");
}

/** A 400 VALIDATION_FAILED with exactly this message, and nothing else in the body. */
export function assertValidation(response: JsonResponse, message: string): void {
  assert.equal(response.statusCode, 400, JSON.stringify(response.json()));
  assert.deepEqual(response.json(), {
    status: "fail",
    message,
    error: { statusCode: 400, name: "AppError", code: "VALIDATION_FAILED" },
  });
}
