import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { z } from "zod";
import { permanentInput } from "../accounts/validation.js";
import { listQuery, parsedBy } from "../core/validation.js";
import { AppError, ErrorCode, isAppError } from "../errors.js";
import { contractValidator } from "./contract-validation.js";
import { ReceivedBody } from "./request-body.js";

type Outcome = { error?: unknown; value?: unknown };

const run = (schema: z.ZodType, httpPart: string, data: unknown) =>
  contractValidator({ schema, httpPart, method: "POST", url: "/x" })(data) as Outcome;

const json = (text: string, type = "application/json") => ReceivedBody.parse(type, Buffer.from(text));

/** The AppError a refusal carries: its status, code and message. */
function refusal(outcome: Outcome) {
  assert.ok(isAppError(outcome.error), "refused with an AppError");
  const { statusCode, code, message } = outcome.error;
  return { statusCode, code, message };
}

describe("a route's zod contract, as Fastify runs it", () => {
  test("a body problem held back while authenticating is answered before the rule runs", () => {
    let ran = false;
    const rule = parsedBy(() => {
      ran = true;
      return {};
    });
    assert.equal(refusal(run(rule, "body", json("{", "application/json"))).code, ErrorCode.INVALID_JSON);
    assert.equal(refusal(run(rule, "body", json("[1]"))).message, "Request body must be a JSON object");
    assert.equal(refusal(run(rule, "body", json("{}", "text/plain"))).statusCode, 415);
    assert.equal(ran, false);
  });

  test("a valid body is what the rule returns; no body at all is an empty object", () => {
    const body = json('{"name":"  Ada Obi ","email":"ADA@Example.com","nin":"12345678901","x":1}');
    assert.deepEqual(run(permanentInput, "body", body).value, {
      name: "Ada Obi",
      email: "ada@example.com",
      identity: { type: "nin", number: "12345678901" },
      // A NIN alone: no second identity beside it (a BVN and a NIN make tier 2).
      second: null,
      // Anyone may pay in, and a credit an account's rules refuse is declined (issue 46).
      allowedPayers: null,
      onMismatch: "decline",
    });
    assert.deepEqual(
      run(
        parsedBy((input) => input),
        "body",
        null,
      ).value,
      {},
    );
  });

  test("the rule's first problem is the 400, in the rule's order", () => {
    assert.deepEqual(refusal(run(permanentInput, "body", json('{"email":"nope","bvn":"1"}'))), {
      statusCode: 400,
      code: ErrorCode.VALIDATION_FAILED,
      message: "name is required",
    });
    assert.equal(
      refusal(run(permanentInput, "body", json('{"name":"Ada","email":"a@b.co","bvn":"1","nin":"x"}')))
        .message,
      "bvn must be a string of exactly 11 digits",
    );
  });

  test("a rule's other answers (a 404 for an id that cannot exist) pass through unchanged", () => {
    const notFound = new AppError(ErrorCode.WEBHOOK_NOT_FOUND, 404, "Webhook endpoint not found");
    const rule = parsedBy(() => {
      throw notFound;
    });
    assert.equal(run(rule, "body", json("{}")).error, notFound);
    assert.equal(notFound.statusCode, 404, "not turned into a 500 by the validator");
  });

  test("a plain zod schema's first issue is the 400's message", () => {
    const params = z.object({ accountNumber: z.string().regex(/^\d{10}$/, "not 10 digits") });
    assert.deepEqual(refusal(run(params, "params", { accountNumber: "12" })), {
      statusCode: 400,
      code: ErrorCode.VALIDATION_FAILED,
      message: "not 10 digits",
    });
  });

  test("a query is read as the lists read it (repeated parameters refused, digits only)", () => {
    assert.deepEqual(run(listQuery, "querystring", { page: "007", limit: "25" }).value, {
      page: 7,
      limit: 25,
    });
    assert.equal(
      refusal(run(listQuery, "querystring", { page: ["1", "2"] })).message,
      "page must be given once",
    );
    assert.equal(
      refusal(run(listQuery, "querystring", { limit: "1e2" })).message,
      "limit must be a whole number from 1 to 100",
    );
  });
});
