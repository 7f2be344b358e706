import type { Selectable } from "kysely";
import type { EventsTable } from "./schema.js";

export type { EndpointTypes, EventToWrite } from "../core/event-to-write.js";

export type EventRow = Selectable<EventsTable>;
