import { displayNameSchema } from "../display-name.js";
import { validationFailed } from "../errors.js";

export const MAX_BUSINESS_NAME_LENGTH = 100;

/** A business's name: the customer-name rules, named "business name" in messages. */
export const businessNameSchema = displayNameSchema("business name", MAX_BUSINESS_NAME_LENGTH);

/** Validates a business's name: the name to store, or a 400 naming the first problem. */
export function parseBusinessName(name: unknown): string {
  const result = businessNameSchema.safeParse(name);
  if (!result.success) throw validationFailed(result.error.issues[0]?.message ?? "invalid business name");
  return result.data;
}
