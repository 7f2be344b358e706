import assert from "node:assert/strict";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import fc from "fast-check";
import type { LightMyRequestResponse } from "fastify";
import { numberSpaceExhausted } from "../../src/errors.js";
import type { AccountProvider, VirtualAccountRequest } from "../../src/providers/account-provider.js";
import { WrappedBank } from "./banks.js";
import { API, createHarness, type Harness } from "./harness.js";

// What the OpenAPI suites share: the document as served, Ajv validators compiled from it that
// check real answers (status, body, headers), and a bank that holds, breaks or exhausts on demand.

const addFormats = addFormatsModule.default;

export const OPENAPI_URL = `${API}/openapi.json`;
export const GENERATE = "/account/generate";
export const TEMPORARY = "/account/generate/temporary";
export const LIST = "/account/list";
export const ACCOUNT = "/account/{accountNumber}";
export const SANDBOX = "/sandbox/transfers";
/** Where the document's `$ref`s resolve, for Ajv. */
const BASE = "https://vas.test/openapi.json";

export type Json = Record<string, unknown>;

/** The embedded bank, plus identity numbers that hold, break or exhaust it on demand. */
export class ScriptedBank extends WrappedBank {
  static readonly HOLD = "99999999901";
  static readonly DUPLICATE = "99999999902";
  static readonly EXHAUSTED = "99999999903";
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  private entered: (() => void) | undefined;

  /** Holds the next HOLD request; resolves once it has arrived. */
  hold(): Promise<void> {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
    return new Promise((resolve) => {
      this.entered = resolve;
    });
  }

  release(): void {
    this.open?.();
  }

  override async createVirtualAccount(request: VirtualAccountRequest) {
    switch (request.licenseNumber) {
      case ScriptedBank.HOLD:
        this.entered?.();
        await this.gate;
        break;
      case ScriptedBank.EXHAUSTED:
        throw numberSpaceExhausted();
      case ScriptedBank.DUPLICATE:
        // The same number twice breaks an invariant the database enforces: a 500.
        return {
          accountNumber: "0000014579",
          accountName: request.virtualAccountName,
          accountReference: request.accountReference,
        };
    }
    return this.inner.createVirtualAccount(request);
  }
}

/** Builds a harness whose provider is a ScriptedBank over the embedded one. */
export async function scriptedHarness(options: Parameters<typeof createHarness>[0]) {
  let bank: ScriptedBank | undefined;
  const h = await createHarness({
    ...options,
    provider: ({ embedded }: { embedded: AccountProvider }) => {
      bank = new ScriptedBank(embedded);
      return bank;
    },
  });
  return { h, bank: bank as ScriptedBank };
}

export async function fetchDocument(h: Harness): Promise<Json> {
  const response = await h.app.inject({ method: "GET", url: OPENAPI_URL });
  assert.equal(response.statusCode, 200);
  return response.json();
}

/** The document's declarations, and Ajv validators compiled from them (its `$ref`s resolved by Ajv). */
export class Contract {
  // Strict, except that `anyOf: [{ required: ["bvn"] }, ...]` names properties declared beside it.
  private readonly ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    addFormats(this.ajv);
    // The whole document is the schema resource that its `#/components/...` references point into.
    this.ajv.addVocabulary(["openapi", "info", "servers", "tags", "paths", "components"]);
    this.ajv.addSchema(document, BASE);
  }

  /** The value at a JSON pointer of the document. */
  at(pointer: string): Json | undefined {
    const parts = pointer.split("/").slice(1);
    let node: unknown = this.document;
    for (const part of parts)
      node = (node as Json | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    return node as Json | undefined;
  }

  /** A validator for the schema at a JSON pointer of the document. */
  validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${BASE}#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  /** Where the response declared for an operation and status is, past any `$ref`. */
  responsePointer(method: string, path: string, status: number): string {
    let pointer = `/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}/responses/${status}`;
    let node = this.at(pointer);
    assert.ok(node, `${method.toUpperCase()} ${path} documents a ${status}`);
    while (typeof node.$ref === "string") {
      pointer = node.$ref.slice(1);
      node = this.at(pointer);
      assert.ok(node, `${pointer} exists`);
    }
    return pointer;
  }

  /** Asserts that a real response is one the document declares: its status, body and headers. */
  check(
    method: "get" | "post" | "head" | "patch" | "delete",
    path: string,
    response: LightMyRequestResponse,
  ): void {
    const pointer = this.responsePointer(method, path, response.statusCode);
    if (method === "head") {
      assert.equal(this.at(`${pointer}/content`), undefined, `HEAD ${path} declares no body`);
      assert.equal(response.body, "");
      this.checkHeaders(this.at(`${pointer}/headers`) ?? {}, response);
    } else this.checkAt(pointer, response, `${method.toUpperCase()} ${path}`);
  }

  /** Asserts that a real response matches the response declared at `pointer`. */
  checkAt(pointer: string, response: LightMyRequestResponse, what = pointer): void {
    assert.match(String(response.headers["content-type"]), /^application\/json/);
    const validate = this.validator(`${pointer}/content/application~1json/schema`);
    assert.ok(
      validate(response.json()),
      `${what} ${response.statusCode}: ${JSON.stringify(validate.errors)}\n${response.body}`,
    );
    this.checkHeaders(this.at(`${pointer}/headers`) ?? {}, response);
  }

  private checkHeaders(declared: Json, response: LightMyRequestResponse): void {
    const names = new Map(Object.keys(declared).map((name) => [name.toLowerCase(), name]));
    for (const [lower, name] of names) {
      const reference = (declared[name] as Json).$ref;
      const header = typeof reference === "string" ? this.at(reference.slice(1)) : (declared[name] as Json);
      assert.ok(header, `header ${name} is declared`);
      const value = response.headers[lower];
      if (header.required === true) assert.ok(value !== undefined, `header ${name} is sent`);
      if (value === undefined) continue;
      const schema = header.schema as Json;
      const typed = schema.type === "integer" ? Number(value) : value;
      assert.ok(this.ajv.validate(schema, typed), `header ${name}: ${String(value)}`);
    }
    for (const sent of DOCUMENTED_HEADERS) {
      if (response.headers[sent] !== undefined) assert.ok(names.has(sent), `header ${sent} is documented`);
    }
  }
}

/** Response headers of the API that the document must declare wherever they are sent. */
const DOCUMENTED_HEADERS = [
  "x-request-id",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "retry-after",
  "idempotent-replayed",
];

/**
 * `source` without its look-ahead and look-behind groups, which fc.stringMatching cannot read:
 * what it generates is then filtered by the whole pattern.
 */
function withoutLookarounds(source: string): string {
  let out = "";
  for (let i = 0; i < source.length; i++) {
    if (/^\(\?<?[=!]/.test(source.slice(i, i + 4))) {
      let depth = 0;
      let inClass = false;
      for (; i < source.length; i++) {
        const c = source[i];
        if (c === "\\") i++;
        else if (inClass) inClass = c !== "]";
        else if (c === "[") inClass = true;
        else if (c === "(") depth++;
        else if (c === ")" && --depth === 0) break;
      }
      continue;
    }
    out += source[i];
    if (source[i] === "\\") out += source[++i] ?? "";
  }
  return out;
}

/**
 * Values the document's schema at `pointer` accepts, built from its keywords (the `$ref`s, types,
 * bounds, patterns and formats the request schemas use) and checked against Ajv's reading of it.
 */
export function bodiesOf(contract: Contract, pointer: string): fc.Arbitrary<unknown> {
  const validate = contract.validator(pointer);
  return arbitraryOf(contract, contract.at(pointer) ?? {}).filter((value) => validate(value));
}

function arbitraryOf(contract: Contract, schema: Json): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === "string") return arbitraryOf(contract, contract.at(schema.$ref.slice(1)) ?? {});
  if (Array.isArray(schema.anyOf))
    return fc.oneof(...(schema.anyOf as Json[]).map((s) => arbitraryOf(contract, s)));
  if (Array.isArray(schema.type))
    return fc.oneof(...(schema.type as string[]).map((type) => arbitraryOf(contract, { ...schema, type })));
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const number = (key: string, fallback: number) =>
    typeof schema[key] === "number" ? (schema[key] as number) : fallback;
  switch (schema.type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer": {
      const min = number("minimum", -1_000);
      const max = number("maximum", 1_000_000);
      return fc.oneof(fc.integer({ min, max: Math.min(max, min + 10_000_000) }), fc.constantFrom(min, max));
    }
    case "string": {
      if (schema.format === "date-time")
        return fc
          .date({ min: new Date("2020-01-01"), max: new Date("2030-01-01"), noInvalidDate: true })
          .map((date) => date.toISOString());
      const pattern = typeof schema.pattern === "string" ? new RegExp(schema.pattern, "u") : undefined;
      const maxLength = number("maxLength", 300);
      const strings = pattern
        ? fc.stringMatching(new RegExp(withoutLookarounds(schema.pattern as string)))
        : fc.string({ maxLength });
      return strings.filter((text) => [...text].length <= maxLength && (!pattern || pattern.test(text)));
    }
    case "array": {
      const items = arbitraryOf(contract, (schema.items as Json) ?? {});
      const bounds = { minLength: number("minItems", 0), maxLength: number("maxItems", 4) };
      return schema.uniqueItems === true ? fc.uniqueArray(items, bounds) : fc.array(items, bounds);
    }
    case "object": {
      const properties = (schema.properties as Record<string, Json>) ?? {};
      const model = Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, arbitraryOf(contract, property)]),
      );
      return fc.record(model, { requiredKeys: (schema.required as string[]) ?? [] });
    }
    default:
      return fc.jsonValue();
  }
}
