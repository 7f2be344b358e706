import { z } from "zod";
import { Schemas } from "./answers.js";

/** How the document converts a zod schema: JSON Schema 2020-12, values as the server sends them. */
export const TO_JSON_SCHEMA = { target: "draft-2020-12", io: "output" } as const;

/** Component schemas (the named bodies and answers), named; references between them become `$ref`s. */
export function componentSchemas(): Record<string, unknown> {
  const named = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(Schemas)) named.add(schema, { id });
  const { schemas } = z.toJSONSchema(named, {
    ...TO_JSON_SCHEMA,
    uri: (id) => `#/components/schemas/${id}`,
  });
  // Each becomes part of the OpenAPI document, not a schema document of its own.
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return schemas;
}
