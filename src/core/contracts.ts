import type { z } from "zod";

// Compile-time checks that a contract (a zod schema) describes exactly what the domain returns.

/** The schema's values are values of T, and both have the same fields. */
export type Describes<S extends z.ZodType, T> =
  z.output<S> extends T
    ? [Exclude<keyof T, keyof z.output<S>> | Exclude<keyof z.output<S>, keyof T>] extends [never]
      ? true
      : false
    : false;

export type Assert<T extends true> = T;
