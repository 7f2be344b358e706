import assert from "node:assert/strict";
import { test } from "node:test";
import { FAILURE_RUN } from "./attempt-outcome.js";
import { type DueDelivery, withinEndpointCaps } from "./endpoint-caps.js";

const due = (id: string, endpointId: string, inFlight = 0, consecutiveFailures = 0): DueDelivery => ({
  id,
  endpointId,
  consecutiveFailures,
  inFlight,
});

test("an endpoint gets at most its cap, counting what it has in flight, and the others their turn", () => {
  const picked = withinEndpointCaps(
    [due("a1", "a", 1), due("a2", "a", 1), due("a3", "a", 1), due("b1", "b"), due("b2", "b")],
    2,
  );
  assert.deepEqual(picked, ["a1", "b1", "b2"]);
});

test("an endpoint failing a run gets one delivery, the probe, and none while one is in flight", () => {
  const failing = FAILURE_RUN;
  assert.deepEqual(withinEndpointCaps([due("a1", "a", 0, failing), due("a2", "a", 0, failing)], 8), ["a1"]);
  assert.deepEqual(withinEndpointCaps([due("a1", "a", 1, failing)], 8), []);
  assert.deepEqual(withinEndpointCaps([due("a1", "a", 0, failing - 1), due("a2", "a", 0, failing - 1)], 8), [
    "a1",
    "a2",
  ]);
});
