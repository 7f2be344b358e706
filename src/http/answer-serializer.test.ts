import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fastify from "fastify";
import { z } from "zod";
import { answerSerializer } from "./answer-serializer.js";
import { withContracts } from "./contract-validation.js";
import { answersOf } from "./openapi-components.js";
import { API_ROUTES } from "./routes/index.js";

type Node = Record<string, unknown>;

const TRICKY_TEXT = 'Ọlá "Ada" \\ \u2028 </script> \ud83d\ude00';

/**
 * Values `schema` (JSON Schema of an answer) describes, with every field present, built in the
 * schema's own order as the domain builds its answers: each nullable field null in one and set in
 * the other, integers past 2^31 and 2^53, text that JSON must escape, an open `data` map of nested
 * values of every kind.
 */
function samples(schema: Node, nulls: boolean): unknown {
  const nullable = Array.isArray(schema.anyOf) && (schema.anyOf as Node[]).some((b) => b.type === "null");
  if (nullable) {
    const value = (schema.anyOf as Node[]).find((branch) => branch.type !== "null") ?? {};
    return nulls ? null : samples(value, nulls);
  }
  if (Array.isArray(schema.anyOf)) {
    // Objects of different fields (an allowed payer: an account or a name): each branch in turn.
    const branches = schema.anyOf as Node[];
    return samples(branches[nulls ? 0 : branches.length - 1] ?? {}, nulls);
  }
  if (Array.isArray(schema.type)) {
    const [type] = (schema.type as string[]).filter((name) => name !== "null");
    return nulls ? null : samples({ ...schema, type }, nulls);
  }
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum.at(-1);
  switch (schema.type) {
    case "object":
      return Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, Node>).map(([key, field]) => [
          key,
          samples(field, nulls),
        ]),
      );
    case "array":
      return [samples(schema.items as Node, nulls), samples(schema.items as Node, !nulls)];
    case "integer":
      return nulls ? 2 ** 31 + 7 : Number.MAX_SAFE_INTEGER;
    case "number":
      return 0.1 + 0.2;
    case "boolean":
      return !nulls;
    case "string":
      return TRICKY_TEXT;
    case undefined:
      // Unknown: what an event's `data` carries, any JSON at all.
      return { amount: 2 ** 40, nested: { list: [1, "two", null, true], text: TRICKY_TEXT }, none: null };
  }
  throw new Error(`no sample for ${JSON.stringify(schema)}`);
}

describe("answers serialized from their routes' schemas", () => {
  const answers = API_ROUTES.flatMap(({ contract }) =>
    Object.entries(answersOf(contract)).map(([status, schema]) => ({
      name: `${contract.method} ${contract.path} ${status}`,
      schema,
    })),
  );

  test("every declared answer is written byte for byte as JSON.stringify writes it", () => {
    assert.ok(answers.length >= API_ROUTES.length);
    for (const { name, schema } of answers) {
      const write = answerSerializer({ schema, method: "GET", url: name, httpStatus: "200" });
      const described = z.toJSONSchema(schema, { target: "draft-07", io: "output" }) as Node;
      for (const nulls of [true, false]) {
        const value = samples(described, nulls);
        assert.equal(write(value), JSON.stringify(value), `${name} (nulls: ${nulls})`);
      }
    }
  });

  test("a literal is written as the value holds it, and a date-time string as the string", () => {
    const schema = z.strictObject({ status: z.literal("success"), at: z.iso.datetime(), n: z.int() });
    const write = answerSerializer({ schema, method: "GET", url: "/x", httpStatus: "200" });
    const odd = { status: "other", at: "not a date", n: 1.5 };
    assert.equal(write(odd), JSON.stringify(odd));
  });

  test("a route that declares no answers is refused when it is registered", async () => {
    const app = fastify();
    await app.register(async (scope) => {
      const routes = withContracts(scope);
      assert.throws(
        () => routes.get("/bare", async () => ({ status: "success" })),
        /GET \/bare declares no answers/,
      );
      routes.get(
        "/declared",
        { schema: { response: { 200: z.strictObject({ ok: z.boolean() }) } } },
        async () => ({
          ok: true,
        }),
      );
    });
    const response = await app.inject({ method: "GET", url: "/declared" });
    assert.equal(response.body, '{"ok":true}');
    await app.close();
  });
});
