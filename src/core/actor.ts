/**
 * Who does something: the domain's methods take an actor, never an HTTP caller, so that the
 * same rules hold for the API, the CLI and (later) the dashboard and the operator console.
 */
export type Actor =
  | { type: "api_key"; id: string }
  | { type: "user"; id: string }
  | { type: "operator"; id: string }
  /** The CLI has no id of its own: audit rows record none. */
  | { type: "cli"; id: null };

export const CLI: Actor = { type: "cli", id: null };

/** Operators act through the console or the CLI (which is run by whoever runs the service). */
export const isOperator = (actor: Actor) => actor.type === "operator" || actor.type === "cli";

/**
 * The business an operation is for: its id, and its name (part of every account name). Whoever
 * acts for it (an API key today, the dashboard later) is resolved before the domain is called.
 */
export interface ForBusiness {
  businessId: string;
  businessName: string;
  /**
   * When the business was last seen verified (`completed`) by whoever resolved it: the API's
   * authenticator, whose view of a status change lags by at most its epoch check. A service
   * that must act only for a verified business reads the status itself when this is absent or
   * older than that bound, and the database refuses the write regardless (issue 43).
   */
  verifiedAsOf?: number;
}
