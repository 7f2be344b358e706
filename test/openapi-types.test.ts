import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import ts from "typescript";
import { API, createHarness } from "./helpers/harness.js";

// What an integrator does with the served document: generate types with openapi-typescript and
// call the API through openapi-fetch. The types must let through what a client may send (optional
// fields optional, null where null is "not sent") and stop what the server refuses.

const CLIENT = `import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

export const client = createClient<paths>({ baseUrl: "http://localhost:3000${API}" });
`;

/**
 * Each file is type-checked with the generated types; `error` is null when it must compile, else
 * what its diagnostic must say. valid.ts makes each refused call once more, put right.
 */
const CALLS: Record<string, { code: string; error: RegExp | null }> = {
  "valid.ts": {
    error: null,
    code: `
const permanent = await client.POST("/account/generate", {
  body: { name: "Ada Obi", email: "ada@example.com", bvn: "22345678901" },
});
export const accountNumber: string | undefined = permanent.data?.data.accountNumber;
// duration is optional; null is "not sent"; the first identity sent is the one used.
await client.POST("/account/generate/temporary", {
  body: { name: " Ada ", email: "  Ada@Example.com ", bvn: null, nin: "12345678901", duration: null },
});
await client.POST("/account/generate/temporary", {
  body: { name: "Ada", email: "ada@example.com", NIN: "12345678901", duration: 30 },
  headers: { "Idempotency-Key": "order-7f3a9c" },
});
await client.POST("/account/generate/temporary", {
  body: { name: "Ada", email: "ada@example.com", bvn: "22345678901", duration: 30 },
});
const list = await client.GET("/account/list");
export const total: number | undefined = list.data?.pagination.total;
await client.GET("/account/list", { params: { query: { page: 2, limit: 50 } } });
await client.HEAD("/account/list");
const failed = permanent.error?.error;
export const code: string | undefined = typeof failed === "object" ? failed.code : undefined;
// Who may pay in, changed: null lets anyone pay.
const updated = await client.PATCH("/account/{accountNumber}", {
  params: { path: { accountNumber: "0184421779" } },
  body: { allowedPayers: [{ accountNumber: "0123456789", bankCode: "058" }, { name: "Ada Obi" }], onMismatch: "hold" },
});
export const policy: "decline" | "hold" | undefined = updated.data?.data.onMismatch;
await client.PATCH("/account/{accountNumber}", {
  params: { path: { accountNumber: "0184421779" } },
  body: { allowedPayers: null },
});
`,
  },
  "missing-name.ts": {
    error: /'name'|missing the following properties .*\bname\b/,
    code: `
await client.POST("/account/generate", { body: { email: "ada@example.com", bvn: "22345678901" } });
`,
  },
  "string-duration.ts": {
    error: /^duration: /,
    code: `
await client.POST("/account/generate/temporary", {
  body: { name: "Ada", email: "ada@example.com", bvn: "22345678901", duration: "30" },
});
`,
  },
  "no-identity.ts": {
    error: /^body: .*'(bvn|BVN|nin|NIN|ninNumber)' is missing/s,
    code: `
await client.POST("/account/generate", { body: { name: "Ada", email: "ada@example.com" } });
`,
  },
  "numeric-bvn.ts": {
    error: /^bvn: Type 'number' is not assignable/,
    code: `
await client.POST("/account/generate", { body: { name: "Ada", email: "ada@example.com", bvn: 22345678901 } });
`,
  },
};

describe("types generated from the served document (openapi-typescript, openapi-fetch)", () => {
  let dir: string;
  let diagnostics: Map<string, string[]>;

  before(async () => {
    const h = await createHarness();
    let document: OpenAPI3;
    try {
      const response = await h.app.inject({ method: "GET", url: `${API}/openapi.json` });
      assert.equal(response.statusCode, 200);
      document = response.json();
    } finally {
      await h.close();
    }
    dir = mkdtempSync(path.join(tmpdir(), "vas-openapi-types-"));
    // The client resolves openapi-fetch (and its types) from this project's dependencies.
    symlinkSync(path.resolve("node_modules"), path.join(dir, "node_modules"), "dir");
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(path.join(dir, "schema.d.ts"), astToString(await openapiTS(document)));
    writeFileSync(path.join(dir, "client.ts"), CLIENT);
    for (const [file, { code }] of Object.entries(CALLS)) {
      writeFileSync(path.join(dir, file), `import { client } from "./client.js";\n${code}`);
    }
    const program = ts.createProgram(
      Object.keys(CALLS).map((file) => path.join(dir, file)),
      {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
        types: [],
        skipLibCheck: true,
      },
    );
    diagnostics = new Map();
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const file = diagnostic.file ? path.relative(dir, diagnostic.file.fileName) : "(options)";
      // Where it points (`duration`, say), then what it says.
      const span = diagnostic.file?.text.slice(
        diagnostic.start,
        (diagnostic.start ?? 0) + (diagnostic.length ?? 0),
      );
      const text = `${span}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
      diagnostics.set(file, [...(diagnostics.get(file) ?? []), text]);
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("the generated types and the client compile on their own", () => {
    for (const file of ["(options)", "schema.d.ts", "client.ts"]) {
      assert.deepEqual(diagnostics.get(file) ?? [], [], file);
    }
  });

  for (const [file, { error }] of Object.entries(CALLS)) {
    if (error === null) {
      test(`${file}: what a client may send compiles`, () => {
        assert.deepEqual(diagnostics.get(file) ?? [], []);
      });
    } else {
      test(`${file}: what the server refuses does not compile`, () => {
        const errors = diagnostics.get(file) ?? [];
        assert.ok(errors.length > 0, `${file} compiled`);
        assert.ok(
          errors.some((text) => error.test(text)),
          `${file}: ${errors.join("\n---\n")}`,
        );
      });
    }
  }
});
