import type { KeyCredential } from "../core/key-credential.js";

// What authentication reads on the request path, declared here where it is used: storage's hot
// reads (prepared statements on SQLite, functions on PostgreSQL) implement it without naming it,
// and compose/ hands them in, where the compiler checks the fit.

/** The key lookup and the credentials epoch, read on every request that is not cached. */
export interface CredentialReads {
  /** An API key's record, with its business, by the key's hash. */
  credential(keyHash: string): Promise<KeyCredential | undefined>;
  /** A counter's value, 0 when it was never advanced (the credentials epoch). */
  counter(name: string): Promise<number>;
}
