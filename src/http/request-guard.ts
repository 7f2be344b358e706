import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { TIMESTAMP_TOLERANCE_MS } from "../auth/signature.js";
import { idempotencyKeyRequired } from "../core/money-out-errors.js";
import { isCommitOutcomeUnknown } from "../core/storage-failures.js";
import type { RecordKey, UnitOfWork } from "../core/unit-of-work.js";
import { idempotencyKeyReused, invalidIdempotencyKey, requestInProgress } from "../errors.js";
import {
  type Claim,
  IDEMPOTENCY_TTL_MS,
  type KeyOfRequest,
  type RequestRecords,
} from "../idempotency/request-records.js";
import { callerOf } from "./authenticate.js";
import { IDEMPOTENCY_KEY } from "./header-rules.js";
import { receivedBody } from "./request-body.js";
import { RequestUnitOfWork } from "./unit-of-work.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** "required": the route moves money and refuses a request without an Idempotency-Key (400). */
    idempotencyKey?: "required";
  }
  interface FastifyInstance {
    requestRecords: RequestRecords;
  }
  interface FastifyRequest {
    /** The keys this request holds (its signature, its Idempotency-Key), until answered. */
    claims?: RecordKey[];
    /** The bank reference claimed with those keys (the Idempotency-Key's when there is one). */
    reference?: string;
    /** Set once the answer was stored inside the request's own write transaction. */
    answerStored?: boolean;
  }
}

/** A signature may be replayed for as long as its timestamp is fresh: remember it a little longer. */
const SIGNATURE_TTL_MS = 2 * TIMESTAMP_TOLERANCE_MS + 60_000;
export const REPLAYED_HEADER = "idempotent-replayed";

/**
 * Method, path and canonical body: what makes two requests "the same request". The path as
 * sent, not the route's pattern: deactivating one account is not the same request as
 * deactivating another, even with the same (version 1) signature.
 */
function fingerprint(request: FastifyRequest): string {
  const body = receivedBody(request);
  const canonical = body?.compact() ?? body?.raw ?? Buffer.alloc(0);
  return createHash("sha256")
    .update(`${request.method} ${request.url.split("?")[0]}\n`)
    .update(canonical)
    .digest("hex");
}

function sendStored(reply: FastifyReply, statusCode: number, response: string) {
  return reply
    .code(statusCode)
    .header(REPLAYED_HEADER, "true")
    .type("application/json; charset=utf-8")
    .send(response);
}

/** The methods that change something: guarded against replays, and taking an Idempotency-Key. */
const GUARDED_METHODS = new Set(["POST", "PATCH", "DELETE"]);

/**
 * Makes POSTs safe to retry and harmless to replay. A POST whose signature was already seen,
 * or whose Idempotency-Key was already used by the business, is not executed again: it gets
 * the first answer, a 409 while the first still runs, or a 422 if the key came with another
 * request. Answers below 500 are stored; a 5xx frees the key for a retry, except when the
 * request's transaction may have committed (the connection was lost during COMMIT): then the
 * record is left exactly as the database has it, and a retry finds the stored answer, or the
 * claim in flight until its lease runs out. Failing to store or free a record never changes
 * the answer: it is logged, and the lease bounds how long the key stays taken.
 */
export function requestGuard(app: FastifyInstance, records: RequestRecords) {
  app.decorateRequest("claims", undefined);
  app.decorateRequest("reference", undefined);
  app.decorateRequest("answerStored", false);
  app.decorate("requestRecords", records);
  app.addHook("onSend", async (request, reply, payload) => {
    const claims = request.claims;
    if (!claims || claims.length === 0) return payload;
    request.claims = undefined;
    // Stored with the effect, or the effect's commit may have landed: the database has it right.
    if (request.answerStored) return payload;
    const finish = (claim: RecordKey) =>
      reply.statusCode >= 500
        ? records.release(claim)
        : records.complete(claim, reply.statusCode, String(payload));
    const outcomes = await Promise.allSettled(claims.map(finish));
    const failed = claims.filter((_, i) => outcomes[i]?.status === "rejected");
    if (failed.length > 0) {
      request.log.warn(
        { err: (outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult).reason },
        "could not update the request's replay record: retrying until the database answers",
      );
      for (const claim of failed) records.finishWhenReachable(() => finish(claim));
    }
    return payload;
  });

  // Before the route's contract is checked (the front door runs it after authentication and the
  // key limit): a request its contract refuses is remembered and replayed like any other answer.
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (!GUARDED_METHODS.has(request.method)) return undefined;
    const header = request.headers["idempotency-key"];
    if (header !== undefined && (typeof header !== "string" || !IDEMPOTENCY_KEY.test(header))) {
      throw invalidIdempotencyKey();
    }
    if (header === undefined && request.routeOptions.config.idempotencyKey === "required") {
      throw idempotencyKeyRequired();
    }
    const claims: RecordKey[] = [];
    request.claims = claims;
    try {
      const stored = await claimKeys(records, request, header, claims);
      if (stored) return sendStored(reply, stored.statusCode, stored.response);
    } catch (error) {
      // Refused by the guard itself (409, 422): nothing ran, so nothing is remembered.
      request.claims = undefined;
      await Promise.all(claims.map((claim) => records.release(claim)));
      throw error;
    }
    return undefined;
  };
}

/** What a POST answers: its status and the exact bytes of its body. */
export interface Answer {
  statusCode: number;
  payload: string;
}

/**
 * Runs a POST's work with a unit of work, handed to the domain as an argument, and sends its
 * answer: storage stores that answer for the request's keys inside the one write the domain
 * makes with the unit, so the effect and the memory of it commit or roll back together, and a
 * retry after a crash can never run the effect twice.
 */
export async function answerOnce<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (unit: UnitOfWork) => Promise<T>,
  toAnswer: (result: T) => { statusCode: number; body: unknown },
): Promise<FastifyReply> {
  let answer: Answer | undefined;
  const encode = (result: T): Answer => {
    const { statusCode, body } = toAnswer(result);
    // Serialized once, from the route's declared answer for the status: stored for replays as sent.
    const serialize = reply.getSerializationFunction(String(statusCode));
    if (!serialize) throw new Error(`${request.routeOptions.url} declares no answer for ${statusCode}`);
    return { statusCode, payload: serialize(body as Record<string, unknown>) };
  };
  const unit = new RequestUnitOfWork((outcome) => {
    answer = encode(outcome as T);
    return { claims: request.claims ?? [], statusCode: answer.statusCode, response: answer.payload };
  }, request.reference);
  let result: T;
  try {
    result = await work(unit);
  } catch (error) {
    // Only a commit whose outcome is unknown keeps the records as they are; any other failure
    // rolled the stored answer back with the effect, and the key is freed for a retry.
    if (answer && isCommitOutcomeUnknown(error)) request.answerStored = true;
    throw error;
  }
  if (answer) {
    request.answerStored = true;
    request.server.health.noteWriteCommitted();
  }
  const sent = answer ?? encode(result);
  return reply.code(sent.statusCode).type("application/json; charset=utf-8").send(sent.payload);
}

/**
 * Claims the request's signature, then its Idempotency-Key if it has one. Returns the stored
 * answer to send instead of running the request, if there is one.
 */
async function claimKeys(
  records: RequestRecords,
  request: FastifyRequest,
  idempotencyKey: string | undefined,
  claims: RecordKey[],
): Promise<{ statusCode: number; response: string } | undefined> {
  const caller = callerOf(request);
  // The canonical signature that was verified, never the header as spelled: every spelling that
  // authenticates maps to this one record.
  const keys: KeyOfRequest[] = [
    { kind: "signature", key: `${caller.keyId}:${caller.signature}`, ttlMs: SIGNATURE_TTL_MS },
  ];
  if (idempotencyKey !== undefined) {
    keys.push({ kind: "idempotency", key: idempotencyKey, ttlMs: IDEMPOTENCY_TTL_MS });
  }
  const outcomes = await records.claim(caller.businessId, keys, fingerprint(request));
  for (const [i, claim] of outcomes.entries()) {
    // The Idempotency-Key, claimed after the signature, outlives any one signature: its
    // reference is the one a retry keeps.
    if (claim.outcome === "claimed") request.reference = claim.reference;
    const early = answer(claim, keys[i]?.kind === "signature" ? "signature" : "Idempotency-Key", claims);
    if (early) return early;
  }
  return undefined;
}

/** Turns a claim into what to do: undefined to go on (claimed), a stored answer, or an error. */
function answer(
  claim: Claim,
  what: "signature" | "Idempotency-Key",
  claims: RecordKey[],
): { statusCode: number; response: string } | undefined {
  switch (claim.outcome) {
    case "claimed":
      claims.push(claim.claim);
      return undefined;
    case "replay":
      return { statusCode: claim.statusCode, response: claim.response };
    case "in_flight":
      throw requestInProgress(what);
    case "mismatch":
      throw idempotencyKeyReused(what);
  }
}
