import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import fc from "fast-check";
import { MAX_NAME_LENGTH, parsePermanentInput, parseTemporaryInput } from "../src/accounts/validation.js";
import { EMAIL_ON_THE_WIRE, NAME_ON_THE_WIRE } from "../src/accounts/wire-patterns.js";
import { API_PREFIX } from "../src/app.js";
import { parseSandboxTransfer } from "../src/collections/validation.js";
import { codePointLength, INVISIBLE_ONLY } from "../src/display-name.js";
import { buildOpenApiDocument } from "../src/http/openapi.js";
import { parseRefund } from "../src/payouts/refunds.js";
import { MAX_PAYOUT_NARRATION_LENGTH, parsePayout } from "../src/payouts/validation.js";

// The document's request schemas judge a body as it is sent, before the server trims, lower-cases
// and normalises it. Property: a validating proxy (Ajv, as Prism uses) and the server agree on
// every body, except the two name rules the document only describes (its length, a visible
// character): there, whatever the server accepts the document accepts.

const RUNS = 3_000;

type Json = Record<string, unknown>;

const schemas = (buildOpenApiDocument(API_PREFIX).components as Json).schemas as Record<string, Json>;
// As a validating proxy compiles it (Prism uses Ajv with its formats).
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormatsModule.default(ajv);
const permanent = ajv.compile(schemas.PermanentAccountRequest as Json);
const temporary = ajv.compile(schemas.TemporaryAccountRequest as Json);

/** Whether the server's validation accepts the body (the same functions the routes call). */
function serverAccepts(parse: (body: Json) => unknown, body: Json): boolean {
  try {
    parse(body);
    return true;
  } catch {
    return false;
  }
}

/** The name rules the document describes but does not encode. */
function nameOnlyDescribed(name: unknown): boolean {
  if (typeof name !== "string") return false;
  const stored = name.normalize("NFC").trim();
  return codePointLength(stored) > MAX_NAME_LENGTH || INVISIBLE_ONLY.test(stored);
}

// Characters the server's rules treat differently: white space it trims (some of it control
// characters), controls it refuses, combining marks NFC composes, an astral character.
const nameUnit = fc.constantFrom(
  "A",
  "d",
  "a",
  " ",
  "\t",
  "\n",
  "\u000b",
  "\f",
  "\r",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u200a",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
  "\u0000",
  "\u001f",
  "\u007f",
  "\u0085",
  "\u009f",
  "\u00a1",
  "e\u0301",
  "\u0301",
  "\u2126",
  "\ud83d\ude00",
  "-",
);
// Bidirectional controls, characters drawn as nothing, unpaired surrogates.
const invisibleUnit = fc.constantFrom("\u202e", "\u2066", "\u200b", "\ufeff", "\u180e", "\ud800", "\udc00");

const name = fc.oneof(
  fc.array(nameUnit, { maxLength: 12 }).map((units) => units.join("")),
  fc.array(fc.oneof(nameUnit, invisibleUnit), { maxLength: 8 }).map((units) => units.join("")),
  fc
    .tuple(fc.constantFrom(" ", "\t", ""), fc.integer({ min: 198, max: 202 }))
    .map(([pad, n]) => `${pad}${"a".repeat(n)}${pad}`),
);

const emailUnit = fc.constantFrom("a", "Z", "\u212a", "\u0130", "0", "_", "'", "+", "-", ".", "é");
const atom = fc.array(emailUnit, { minLength: 0, maxLength: 6 }).map((units) => units.join(""));
const padding = fc.constantFrom("", " ", "  ", "\t", "\n", "\u00a0", "\u3000", "\u0085");
const email = fc.oneof(
  fc
    .tuple(
      padding,
      atom,
      fc.constantFrom("@", "@@", ""),
      fc.array(atom, { minLength: 1, maxLength: 3 }),
      padding,
    )
    .map(([before, local, at, labels, after]) => `${before}${local}${at}${labels.join(".")}${after}`),
  fc
    .tuple(padding, fc.integer({ min: 60, max: 70 }), fc.integer({ min: 170, max: 200 }), padding)
    .map(
      ([before, local, domain, after]) => `${before}${"a".repeat(local)}@${"b".repeat(domain)}.ng${after}`,
    ),
);

const identity = fc.constantFrom(
  undefined,
  null,
  "22345678901",
  "12345678901",
  "2234567890",
  "223456789012",
  " 22345678901",
  "22345678901\n",
  "２２３４５６７８９０１",
  22345678901,
  true,
);

const duration = fc.constantFrom(undefined, null, 1, 40, 10_080, 0, 10_081, 1.5, -0, "30", true, 1e3);

const body = fc
  .record({
    name: fc.oneof(name, fc.constantFrom(undefined, null, 5)),
    email: fc.oneof(email, fc.constantFrom(undefined, null, ["a@b.ng"])),
    bvn: identity,
    BVN: identity,
    nin: identity,
    NIN: identity,
    ninNumber: identity,
    duration,
    extra: fc.constantFrom(undefined, "x", null),
  })
  .map((fields) => {
    const sent: Json = {};
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) sent[key] = value;
    return sent;
  });

describe("the document's request schemas judge a body as the server does", () => {
  for (const [kind, validate, parse] of [
    ["permanent", permanent, parsePermanentInput],
    ["temporary", temporary, parseTemporaryInput],
  ] as const) {
    test(`${kind}: Ajv accepts exactly what the server accepts, before normalisation`, () => {
      fc.assert(
        fc.property(body, (sent) => {
          const server = serverAccepts(parse, sent);
          const document = validate(sent);
          if (server)
            assert.ok(document, `the server accepts, the document refuses: ${JSON.stringify(sent)}`);
          else if (!nameOnlyDescribed(sent.name))
            assert.ok(!document, `the server refuses, the document accepts: ${JSON.stringify(sent)}`);
        }),
        { numRuns: RUNS },
      );
    });
  }

  test("the cases an integrator's proxy got wrong", () => {
    const sent = {
      name: " Ada ",
      email: "  Ada@Example.com ",
      bvn: "22345678901",
      nin: null,
      duration: null,
    };
    assert.ok(permanent(sent) && temporary(sent), JSON.stringify(temporary.errors));
    assert.ok(serverAccepts(parseTemporaryInput, sent));
    const { name: _, ...nameless } = sent;
    assert.ok(!temporary(nameless) && !serverAccepts(parseTemporaryInput, nameless));
    // The first identity sent is the only one judged.
    const ignored = { name: "Ada", email: "ada@example.com", bvn: null, BVN: "22345678901", nin: 7 };
    assert.ok(temporary(ignored) && serverAccepts(parseTemporaryInput, ignored));
  });

  test("an email's lengths count what is left once trimmed", () => {
    const address = (local: number, total: number) =>
      `${"a".repeat(local)}@${"b".repeat(total - local - 4)}.ng`;
    for (const [email, accepted] of [
      [`  ${address(64, 254)}\t`, true],
      [address(64, 255), false],
      [` ${address(65, 100)} `, false],
      [address(1, 6), true],
    ] as const) {
      const sent = { name: "Ada", email, bvn: "22345678901" };
      assert.equal(serverAccepts(parsePermanentInput, sent), accepted, email);
      assert.equal(permanent(sent), accepted, email);
    }
  });
});

describe("the character sets the wire patterns are built from", () => {
  const codeUnits = Array.from({ length: 0x10000 }, (_, unit) => String.fromCharCode(unit));
  // As Ajv compiles a pattern (the `u` flag) and as a validator without it would.
  const patterns = [new RegExp(NAME_ON_THE_WIRE.source, "u"), NAME_ON_THE_WIRE];

  test("every UTF-16 code unit, at a name's ends and inside it", () => {
    for (const unit of codeUnits) {
      for (const name of [`${unit}Ada${unit}`, `A${unit}da`, unit]) {
        const sent = { name, email: "ada@example.com", bvn: "22345678901" };
        const server = serverAccepts(parsePermanentInput, sent);
        const label = `U+${unit.charCodeAt(0).toString(16).padStart(4, "0")} in ${JSON.stringify(name)}`;
        for (const pattern of patterns) {
          if (server) assert.ok(pattern.test(name), `the server accepts ${label} (${pattern.flags})`);
          else if (!nameOnlyDescribed(name))
            assert.ok(!pattern.test(name), `the server refuses ${label} (${pattern.flags})`);
        }
      }
    }
  });

  test("no character but A-Z and the Kelvin sign lower-cases into an email's ASCII", () => {
    const intoAscii: string[] = [];
    for (let point = 0x80; point <= 0x10ffff; point++) {
      if (point >= 0xd800 && point <= 0xdfff) continue;
      if (/^[\x21-\x7e]+$/.test(String.fromCodePoint(point).toLowerCase()))
        intoAscii.push(point.toString(16));
    }
    assert.deepEqual(intoAscii, ["212a"]);
    assert.ok(new RegExp(EMAIL_ON_THE_WIRE.source, "u").test("ada@\u212aano.ng"));
    assert.ok(
      serverAccepts(parsePermanentInput, { name: "Ada", email: "ada@\u212aano.ng", bvn: "22345678901" }),
    );
  });
});

describe("free text and a payer's names: the document's patterns judge them as the server does", () => {
  const payout = ajv.compile(schemas.PayoutRequest as Json);
  const refund = ajv.compile(schemas.RefundRequest as Json);
  const sandbox = ajv.compile(schemas.SandboxTransferRequest as Json);
  const PAYOUT = { amount: 1, bankCode: "058", accountNumber: "1234567896" };
  const TRANSFER = { accountNumber: "0123456789", amount: 1 };
  const longUnit = fc.constantFrom("a", "\ud83d\ude00", "e\u0301", "\u0958");
  const text = fc.oneof(
    fc.array(fc.oneof(nameUnit, invisibleUnit), { maxLength: 12 }).map((units) => units.join("")),
    fc
      .tuple(fc.constantFrom(" ", "\t", ""), longUnit, fc.integer({ min: 97, max: 103 }))
      .map(([pad, unit, n]) => `${pad}${unit.repeat(n)}${pad}`),
  );
  /** The one thing a pattern cannot see: NFC changing how many code points the text has. */
  const nfcChangesLength = (sent: string) =>
    codePointLength(sent.normalize("NFC").trim()) !== codePointLength(sent.trim());
  const agree = (parse: (body: Json) => unknown, validate: (body: Json) => boolean, body: Json) => {
    const server = serverAccepts(parse, body);
    assert.equal(
      validate(body),
      server,
      `the server ${server ? "accepts" : "refuses"}: ${JSON.stringify(body)}`,
    );
  };

  test("a payout's narration and a refund's reason", () => {
    fc.assert(
      fc.property(text, (sent) => {
        if (nfcChangesLength(sent)) return;
        agree(parsePayout, payout, { ...PAYOUT, narration: sent });
        agree(parseRefund, refund, { reason: sent });
      }),
      { numRuns: RUNS },
    );
  });

  test("a sandbox transfer's payer names and narration", () => {
    fc.assert(
      fc.property(text, (sent) => {
        if (nfcChangesLength(sent)) return;
        agree((body) => parseSandboxTransfer(body), sandbox, { ...TRANSFER, narration: sent });
        const payerBankName = { ...TRANSFER, payerBankName: sent };
        if (!nameOnlyDescribed(sent)) agree((body) => parseSandboxTransfer(body), sandbox, payerBankName);
      }),
      { numRuns: RUNS },
    );
  });

  test("lengths are code points: 100 emoji are a 100-character narration, 101 are too long", () => {
    for (const [count, accepted] of [
      [MAX_PAYOUT_NARRATION_LENGTH, true],
      [MAX_PAYOUT_NARRATION_LENGTH + 1, false],
    ] as const) {
      const body = { ...PAYOUT, narration: ` ${"\ud83d\ude00".repeat(count)} ` };
      assert.equal(serverAccepts(parsePayout, body), accepted, `${count}`);
      assert.equal(payout(body), accepted, `${count}`);
    }
  });
});
