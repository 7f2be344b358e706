// Whether the name a bank gives an account looks like a business's name (issue 43, item 7): a
// settlement account in someone else's name is where a business's money would leave it, so the
// dashboard flags it and asks for a tick. The rule: both names in lower case, split into words
// of letters and digits, less the words every company name carries (Ltd, Limited, Nigeria, ...);
// they look alike when they share at least two such words, or the business's one word when its
// name has only one. "Lagos Bites Ltd" and "LAGOS BITES LIMITED" look alike; "Chukwuma Eze"
// does not.

const COMMON = new Set([
  "ltd",
  "limited",
  "plc",
  "nig",
  "nigeria",
  "enterprise",
  "enterprises",
  "ventures",
  "company",
  "co",
  "inc",
  "the",
  "and",
  "of",
  "services",
  "global",
  "international",
]);

/** The words that tell one name from another. */
function words(name: string): Set<string> {
  const found = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "" && !COMMON.has(word));
  return new Set(found);
}

/** Whether `accountName` (as the bank gives it) looks like `businessName`, by the rule above. */
export function namesLookAlike(accountName: string, businessName: string): boolean {
  const a = words(accountName);
  const b = words(businessName);
  if (a.size === 0 || b.size === 0) return false;
  const shared = [...a].filter((word) => b.has(word)).length;
  return shared >= Math.min(2, b.size);
}
