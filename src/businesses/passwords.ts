import { hash, verify } from "@node-rs/argon2";
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import { adjacencyGraphs, dictionary as commonDictionary } from "@zxcvbn-ts/language-common";
import { dictionary as englishDictionary, translations } from "@zxcvbn-ts/language-en";
import { validationFailed } from "../errors.js";

/** The shortest password accepted (NIST SP 800-63B allows 8; a payments dashboard asks more). */
export const MIN_PASSWORD_LENGTH = 12;
/** The longest: hashing cost grows with it, and nobody types more. */
export const MAX_PASSWORD_LENGTH = 256;
/** zxcvbn's score (0-4) a password must reach: 3 is "safely unguessable" offline with a slow hash. */
const MIN_SCORE = 3;

// argon2id with OWASP's recommended parameters (19 MiB, 2 passes, 1 lane): about 30 ms a hash.
// algorithm 2 is Argon2id (the package exports it as an ambient const enum, unusable here).
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

let estimator: ZxcvbnFactory | undefined;

/**
 * Why the password is refused (too short, too long, or guessable: a common password, a word, a
 * pattern, the user's own email or business name), or undefined when it is accepted. The
 * dictionaries (common passwords, English words) load on the first check.
 */
export function passwordProblem(password: string, userInputs: readonly string[] = []): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `use at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `use at most ${MAX_PASSWORD_LENGTH} characters`;
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...commonDictionary, ...englishDictionary },
    graphs: adjacencyGraphs,
    translations,
  });
  const result = estimator.check(password, personalWords(userInputs));
  if (result.score >= MIN_SCORE) return undefined;
  const hint = result.feedback.warning ?? result.feedback.suggestions[0];
  return `this password is too easy to guess${hint ? ` (${hint.replace(/\.$/, "").toLowerCase()})` : ""}: add words or characters that are not a common pattern`;
}

/**
 * What zxcvbn should treat as known words about the user: each input whole, its parts (an
 * email's name and domain labels, a name's words) and a name's words run together.
 */
function personalWords(inputs: readonly string[]): string[] {
  const words = new Set<string>();
  for (const input of inputs) {
    const lower = input.toLowerCase().trim();
    const parts = lower.split(/[^\p{L}\p{N}]+/u).filter((part) => part.length >= 3);
    for (const word of [lower, ...parts, parts.join("")]) if (word.length >= 3) words.add(word);
  }
  return [...words];
}

/** Refuses a password the policy does not accept (400). */
export function checkPassword(password: string, userInputs: readonly string[] = []): void {
  const problem = passwordProblem(password, userInputs);
  if (problem) throw validationFailed(`Password: ${problem}`);
}

/** The password's argon2id hash, in PHC string form (parameters and salt included). */
export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2);

/** Whether the password matches the stored hash (constant-time inside argon2). */
export async function passwordMatches(stored: string, password: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  return verify(stored, password);
}

/**
 * A hash to verify against when the email names nobody, so that an unknown email takes as long
 * as a wrong password and the timing does not tell which emails have accounts.
 */
let decoy: Promise<string> | undefined;
export const decoyHash = (): Promise<string> => {
  decoy ??= hashPassword("not a password anyone has: the decoy for unknown emails");
  return decoy;
};
