import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import ts from "typescript";
import type * as Client from "../src/client/index.js";
import { createHarness, type Harness, type TestBusiness } from "./helpers/harness.js";

// The SDK used from another project exactly as the README's "Using the client from another
// project" says: `npm pack` here, the tarball unpacked by the consumer's postinstall, offline
// (no registry), then a signed call to a running service through `virtual-account-service/client`.

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..");
const { name, version } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  name: string;
  version: string;
};
const TARBALL = `${name}-${version}.tgz`;

/** The consumer's package.json: the README's postinstall, word for word. */
const CONSUMER_PACKAGE = {
  name: "vas-consumer",
  version: "1.0.0",
  private: true,
  type: "module",
  scripts: {
    postinstall: `mkdir -p node_modules/${name} && tar -xzf vendor/${TARBALL} -C node_modules/${name} --strip-components=1`,
  },
};

const CONSUMER_SCRIPT = `import { createClient, VasApiError } from "virtual-account-service/client";

const vas = createClient({
  baseUrl: process.env.VAS_BASE_URL,
  apiKey: process.env.VAS_API_KEY,
  secretKey: process.env.VAS_SECRET_KEY,
});
const account = await vas.generateAccount({ name: "Ada Obi", email: "ada@example.com", bvn: "22345678901" });
const { pagination } = await vas.listAccounts({ limit: 10 });
let refused;
try {
  await vas.listAccounts({ limit: 500 });
} catch (error) {
  if (error instanceof VasApiError) refused = error.code;
}
console.log(JSON.stringify({ account, total: pagination.total, refused }));
`;

const CONSUMER_TYPES = `import { createClient, type PermanentAccount, VasApiError, type VasClient } from "virtual-account-service/client";

const vas: VasClient = createClient({ baseUrl: "https://vas.example.com/api/v1/external", apiKey: "k", secretKey: "s" });

export async function first(): Promise<string> {
  try {
    const account: PermanentAccount = await vas.generateAccount({ name: "Ada", email: "ada@example.com", bvn: "22345678901" });
    // @ts-expect-error the types are real (not any): an account number is a string
    const wrong: number = account.accountNumber;
    return account.accountNumber + String(wrong);
  } catch (error) {
    if (error instanceof VasApiError) return error.code;
    throw error;
  }
}
`;

describe("the SDK from another project (npm pack, unpacked offline)", () => {
  let dir: string;
  let consumer: string;
  let h: Harness;
  let business: TestBusiness;
  let baseUrl: string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "vas-client-package-"));
    consumer = path.join(dir, "consumer");
    mkdirSync(path.join(consumer, "vendor"), { recursive: true });
    h = await createHarness();
    business = await h.createBusiness({ name: "Packed Stores" });
    await h.app.listen({ port: 0, host: "127.0.0.1" });
    baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;

    // `npm pack` runs the `prepare` script (the build) first, as it does for an integrator.
    await run("npm", ["pack", "--pack-destination", dir], { cwd: ROOT, timeout: 60_000 });
    copyFileSync(path.join(dir, TARBALL), path.join(consumer, "vendor", TARBALL));
    writeFileSync(path.join(consumer, "package.json"), JSON.stringify(CONSUMER_PACKAGE, null, 2));
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund"], { cwd: consumer, timeout: 60_000 });
  });
  after(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the consumer's install unpacks the package, and nothing else, at every npm install", async () => {
    assert.deepEqual(
      readdirSync(path.join(consumer, "node_modules")).filter((entry) => !entry.startsWith(".")),
      [name],
      "nothing of the service's dependencies is needed",
    );
    // npm removes what it did not install itself; the postinstall unpacks it again afterwards.
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund"], { cwd: consumer, timeout: 60_000 });
    assert.ok(existsSync(path.join(consumer, "node_modules", name, "dist", "client", "index.js")));
  });

  test("a consumer script imports virtual-account-service/client and makes signed calls", async () => {
    writeFileSync(path.join(consumer, "index.mjs"), CONSUMER_SCRIPT);
    const { stdout } = await run(process.execPath, ["index.mjs"], {
      cwd: consumer,
      timeout: 15_000,
      env: {
        PATH: process.env.PATH ?? "",
        // The specification's form of the base URL, as an integrator copies it.
        VAS_BASE_URL: `${baseUrl}/api/v1/external/`,
        VAS_API_KEY: business.apiKey,
        VAS_SECRET_KEY: business.secretKey,
      },
    });
    const result = JSON.parse(stdout) as { account: Client.PermanentAccount; total: number; refused: string };
    assert.equal(result.account.accountName, "Packed Stores/Ada Obi");
    assert.equal(result.total, 1);
    assert.equal(result.refused, "VALIDATION_FAILED");
    const row = await h.storage.db
      .selectFrom("accounts")
      .select("account_number")
      .where("business_id", "=", business.businessId)
      .executeTakeFirstOrThrow();
    assert.equal(row.account_number, result.account.accountNumber);
  });

  test("the unpacked package type-checks in a strict TypeScript project without skipLibCheck", () => {
    writeFileSync(path.join(consumer, "check.ts"), CONSUMER_TYPES);
    const program = ts.createProgram([path.join(consumer, "check.ts")], {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2022.d.ts"],
      // @types/node (for fetch and AbortSignal), as a Node project has it; nothing else.
      typeRoots: [path.join(ROOT, "node_modules", "@types")],
      types: ["node"],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? path.relative(consumer, d.file.fileName) : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
      );
    assert.deepEqual(problems, []);
  });

  test("the client's declarations reach only its own files, the signing function and the API's types", () => {
    // What a consumer's TypeScript reads: from the client's entry, every relative import of the
    // unpacked declarations, followed; none may name a package but Node's (the service's
    // dependencies are not installed) nor any other file of the server.
    const packageDir = path.join(consumer, "node_modules", name, "dist");
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      const text = readFileSync(path.join(packageDir, file), "utf8");
      for (const [, specifier = ""] of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
        if (specifier.startsWith("node:")) continue;
        assert.ok(specifier.startsWith("."), `${file} imports the package ${specifier}`);
        visit(path.posix.join(path.posix.dirname(file), specifier.replace(/\.js$/, ".d.ts")));
      }
    };
    visit("client/index.d.ts");
    assert.deepEqual([...reached].sort(), [
      "auth/signature.d.ts",
      "client/errors.d.ts",
      "client/index.d.ts",
      "client/money-out.d.ts",
      "client/pages.d.ts",
      "client/transport.d.ts",
      "core/api-types.d.ts",
      "core/money-out-types.d.ts",
    ]);
  });
});
