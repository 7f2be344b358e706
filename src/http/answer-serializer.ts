import fastJson from "fast-json-stringify";
import type { FastifySerializerCompiler } from "fastify";
import { z } from "zod";

// How an answer is turned into bytes: from the zod schema its route declares (`schema.response`),
// converted once per route and status to JSON Schema and compiled by fast-json-stringify, the
// serializer Fastify itself uses. Per answer the compiled function writes each declared field in
// the schema's order with no validation and no parse (a zod parse per answer, as the type
// provider's own compiler does, costs more than the JSON.stringify it replaces).

type Node = Record<string, unknown>;

/** The keywords that shape the bytes; the rest (formats, patterns, bounds, docs) do not. */
const SHAPING = ["type", "properties", "required", "items", "additionalProperties", "$ref", "definitions"];

const mapValues = (record: unknown, map: (node: Node) => Node) =>
  Object.fromEntries(Object.entries(record as Record<string, Node>).map(([key, node]) => [key, map(node)]));

/**
 * The JSON Schema that fast-json-stringify writes exactly as JSON.stringify would for a value
 * the zod schema describes: `anyOf [X, null]` and `type: [X, null]` (zod's nullable) become X with
 * `nullable`, where
 * fast-json-stringify would otherwise try each branch with Ajv per value; a literal (`const`)
 * keeps its type only, so that the value is written as it is, not the constant in its place;
 * `format` goes, so a string is written as the string (never reformatted as a date).
 */
export function forSerializing(node: Node): Node {
  if (Array.isArray(node.anyOf)) {
    const branches = node.anyOf as Node[];
    const values = branches.filter((branch) => branch.type !== "null");
    if (branches.length === 2 && values.length === 1 && values[0]) {
      return { ...forSerializing(values[0]), nullable: true };
    }
    // Objects of different fields (an allowed payer: an account or a name, issue 46): one object
    // of every branch's fields, none required, writes each value's own fields as JSON.stringify does.
    if (branches.every((branch) => branch.type === "object" && branch.properties)) {
      const properties = Object.assign({}, ...branches.map((branch) => branch.properties)) as Node;
      return {
        type: "object",
        properties: mapValues(properties, forSerializing),
        additionalProperties: false,
      };
    }
    // Not a nullable: written by whichever branch fits, which JSON.stringify does not need.
    throw new Error(`no fast serializer for anyOf ${JSON.stringify(node)}`);
  }
  const out: Node = {};
  for (const key of SHAPING) if (node[key] !== undefined) out[key] = node[key];
  if (Array.isArray(out.type)) {
    // `[X, "null"]`, zod's nullable of a simple type: X with `nullable`, one check per value.
    const [type, ...others] = (out.type as string[]).filter((name) => name !== "null");
    if (type === undefined || others.length > 0) throw new Error(`no fast serializer for ${out.type}`);
    out.type = type;
    out.nullable = true;
  }
  if (out.type === undefined && node.const !== undefined) out.type = typeof node.const;
  // A number as it is: fast-json-stringify would round a fraction that an `integer` carried.
  if (out.type === "integer") out.type = "number";
  if (out.properties) out.properties = mapValues(out.properties, forSerializing);
  if (out.definitions) out.definitions = mapValues(out.definitions, forSerializing);
  if (out.items && typeof out.items === "object") out.items = forSerializing(out.items as Node);
  if (out.additionalProperties && typeof out.additionalProperties === "object") {
    out.additionalProperties = forSerializing(out.additionalProperties as Node);
  }
  return out;
}

/** The JSON Schema of the values `schema` describes, as fast-json-stringify is given it. */
export function serializingSchema(schema: z.ZodType): Node {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { target: "draft-07", io: "output" });
  return forSerializing(json);
}

// Compiled once per schema: the routes share answers (a transaction, a payout), and every app a
// process builds (the tests build many) shares the same schemas. The functions hold no state.
const compiled = new WeakMap<z.ZodType, (data: unknown) => string>();

/** Compiles a route's declared answer (a zod schema) into the function that writes it. */
export const answerSerializer: FastifySerializerCompiler<z.ZodType> = ({ schema }) => {
  let write = compiled.get(schema);
  if (!write) {
    write = fastJson(serializingSchema(schema)) as (data: unknown) => string;
    compiled.set(schema, write);
  }
  return write;
};
