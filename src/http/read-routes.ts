import type { z } from "zod";
import type { Caller } from "../auth/authenticator.js";
import type { Pagination } from "../core/validation.js";
import { callerOf } from "./authenticate.js";
import { type ContractScope, ID_PARAMS } from "./contract-validation.js";
import { answersOf, type RouteContract } from "./openapi-components.js";

// How the signed reads are served: one thing by its id, or one page of a list, each answered as
// its contract declares (`schema.response`, serialized from it).

/** Registers the GET `contract` describes, of one thing by the `:id` in its path. */
export function byIdRoute(
  app: ContractScope,
  contract: RouteContract,
  find: (caller: Caller, id: string) => Promise<unknown>,
): void {
  app.get(
    contract.path,
    { schema: { params: ID_PARAMS, response: answersOf(contract) } },
    async (request) => ({
      status: "success",
      data: await find(callerOf(request), request.params.id),
    }),
  );
}

/** Registers the GET `contract` describes, of one page of a list that `query` reads the query of. */
export function pageRoute<Q extends z.ZodType>(
  app: ContractScope,
  contract: RouteContract,
  query: Q,
  list: (caller: Caller, query: z.output<Q>) => Promise<{ items: unknown[]; pagination: Pagination }>,
): void {
  app.get(
    contract.path,
    { schema: { querystring: query, response: answersOf(contract) } },
    async (request) => {
      // What the query's schema returned; the type provider cannot name a generic schema's output.
      const { items, pagination } = await list(callerOf(request), request.query as z.output<Q>);
      return { status: "success", data: items, pagination };
    },
  );
}
