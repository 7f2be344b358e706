import assert from "node:assert/strict";
import { test } from "node:test";
import { AppError, ErrorCode } from "./errors.js";

test("a refusal (4xx) carries no stack; a fault (5xx) keeps its stack for the log", () => {
  const limit = Error.stackTraceLimit;
  const refusal = new AppError(ErrorCode.INVALID_API_KEY, 401, "Invalid API key");
  assert.equal(refusal.stack, "AppError: Invalid API key");
  assert.equal(refusal.message, "Invalid API key");
  const fault = new AppError(ErrorCode.SERVICE_UNAVAILABLE, 503, "Service unavailable");
  assert.match(fault.stack ?? "", /\n\s+at /, "frames for the 5xx");
  assert.equal(Error.stackTraceLimit, limit, "the process-wide limit is as it was");
  assert.match(new Error("ordinary").stack ?? "", /\n\s+at /, "other errors keep their stacks");
});
