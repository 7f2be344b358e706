import { z } from "zod";
import { nameOf } from "./answers.js";
import { HEADERS, PARAMETERS, RESPONSES } from "./openapi-parts.js";

// How a description becomes the document's JSON: each part an operation holds that the document
// lists by name (a zod body or answer of answers.ts, a shared parameter, header or response of
// openapi-parts.ts) is written as a `$ref` to it; everything else is copied.

const SHARED = new Map<unknown, string>(
  Object.entries({ parameters: PARAMETERS, headers: HEADERS, responses: RESPONSES }).flatMap(
    ([kind, parts]) =>
      Object.entries(parts).map(([name, part]): [unknown, string] => [part, `#/components/${kind}/${name}`]),
  ),
);

/** `value`'s parts, written as the document states them (a copy: nothing is shared with it). */
function copied(value: unknown, where: string): unknown {
  if (Array.isArray(value)) return value.map((item) => documented(item, where));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, documented(item, where)]));
  }
  return value;
}

/** `value` as the document states it: a `$ref` where it is a named component, else a copy. */
export function documented(value: unknown, where: string): unknown {
  if (value instanceof z.ZodType) {
    const name = nameOf(value);
    if (name === undefined) throw new Error(`${where}: a body or answer that answers.ts does not name`);
    return { $ref: `#/components/schemas/${name}` };
  }
  const shared = SHARED.get(value);
  return shared === undefined ? copied(value, where) : { $ref: shared };
}

/** Named components as the document's `components` list them: each itself, its parts referred to. */
export const listed = (parts: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(parts).map(([name, part]) => [name, copied(part, name)]));
