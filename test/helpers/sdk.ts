import type { AddressInfo } from "node:net";
import { createClient, type VasClient } from "../../src/client/index.js";
import type { Harness, TestBusiness } from "./harness.js";

/** The harness's app listening on a real port, and the SDK signed in as `business` (no retries). */
export async function listeningClient(h: Harness, business: TestBusiness): Promise<VasClient> {
  if (!h.app.server.listening) await h.app.listen({ port: 0, host: "127.0.0.1" });
  return createClient({
    baseUrl: `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`,
    apiKey: business.apiKey,
    secretKey: business.secretKey,
    maxRetries: 0,
  });
}
