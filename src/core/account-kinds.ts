// What kind of account a business issues, and the identity a customer gives for one: the
// accounts domain's value sets, declared here because storage keeps them in its columns.

/** A permanent account (one per customer's email) or a temporary one (it expires). */
export type AccountKind = "permanent" | "temporary";

/** The identity number a customer gave: a BVN or a NIN (only its fingerprint and last 4 kept). */
export type IdentityType = "bvn" | "nin";
