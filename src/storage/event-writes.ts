// The transfer writes (transfer-writes.ts) name core's event types from here.
export type { EndpointTypes, EventToWrite } from "../core/event-to-write.js";
