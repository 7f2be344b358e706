import type { FastifyInstance, FastifySchemaCompiler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { type ZodType, z } from "zod";
import { isAppError, validationFailed } from "../errors.js";
import { answerSerializer } from "./answer-serializer.js";
import { ReceivedBody } from "./request-body.js";

/**
 * How Fastify runs a route's zod contract (its `params`, `querystring` and `body`): after the
 * preValidation hooks (authentication, the per-key limit, the replay guard's claim), so that a
 * caller learns nothing of the rules before it is authenticated and a refused request is stored
 * for replays like any other answer. The body arrives as a ReceivedBody: a problem held back
 * while authenticating (not JSON, another media type) is answered first, then the JSON object is
 * checked. The rules' own AppErrors (a 400 naming the field, a 404 for an id that cannot exist)
 * pass through as they are; any other refusal is a 400 with the schema's first message. What
 * the schema returns is what the handler gets, typed by the schema (ZodTypeProvider).
 */
export const contractValidator: FastifySchemaCompiler<ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    let input: unknown = data;
    if (httpPart === "body") {
      const received = data instanceof ReceivedBody ? data : undefined;
      if (received?.problem) return { error: received.problem };
      input = received?.value ?? {};
    }
    try {
      const result = schema.safeParse(input);
      if (result.success) return { value: result.data };
      return { error: validationFailed(result.error.issues[0]?.message ?? "invalid value") };
    } catch (error) {
      if (isAppError(error)) return { error };
      throw error;
    }
  };

/**
 * The scope whose routes are validated, typed and answered by their zod contracts: each route
 * must declare its answers (`schema.response`), which are serialized from those schemas.
 */
export function withContracts(scope: FastifyInstance) {
  scope.setValidatorCompiler(contractValidator);
  scope.setSerializerCompiler(answerSerializer);
  scope.addHook("onRoute", ({ method, url, schema }) => {
    // Fastify's own HEAD beside a GET carries the GET's schema; anything else must have its own.
    if (method === "HEAD") return;
    if (!schema?.response) throw new Error(`${String(method)} ${url} declares no answers (schema.response)`);
  });
  return scope.withTypeProvider<ZodTypeProvider>();
}

/** What a route file registers on: a scope whose routes are validated and typed by their contracts. */
export type ContractScope = ReturnType<typeof withContracts>;

/** The `:id` of a route's path: any text (the domain answers 404 for an id that cannot exist). */
export const ID_PARAMS = z.object({ id: z.string() });

/** The `:accountNumber` of the account routes: the route itself matches only 10 digits. */
export const ACCOUNT_NUMBER_PARAMS = z.object({ accountNumber: z.string().regex(/^\d{10}$/) });
