import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { runCli } from "../../src/cli/run.js";

// The admin CLI run in-process against a SQLite database of the test file's own (created before
// its tests, removed after): what test/cli*.test.ts share. `dir` and `env` are set in `before`.

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const MASTER_KEY_HEX = "4f1c2e7a9b3d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8";
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const MISSING_ID = "00000000-0000-4000-8000-000000000000";

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export let dir: string;
export let env: NodeJS.ProcessEnv;
let caseCounter = 0;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), "vas-cli-"));
  env = { DATABASE_URL: `sqlite:${dir}/vas.db`, DATA_DIR: dir, VAS_MASTER_KEY: MASTER_KEY_HEX };
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process, collecting what it writes. */
export async function vas(argv: string[], runEnv: NodeJS.ProcessEnv = env): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    env: runEnv,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

/** Runs a command that must succeed; returns its stdout parsed as one JSON value. */
export async function vasJson<T>(argv: string[], runEnv: NodeJS.ProcessEnv = env): Promise<T> {
  const run = await vas(argv, runEnv);
  assert.equal(run.code, 0, `vas ${argv.join(" ")} failed: ${run.stderr}`);
  assert.ok(run.stdout.endsWith("\n"), "JSON output ends with a newline");
  assert.equal(run.stdout.trimEnd().split("\n").length, 1, `expected one line of JSON, got:\n${run.stdout}`);
  return JSON.parse(run.stdout) as T;
}

export interface Created {
  businessId: string;
  name: string;
  verificationStatus: string;
  apiKey: string;
  secretKey: string;
}

export interface KeySummary {
  keyId: string;
  prefix: string;
  status: string;
  minSignatureVersion: number;
  createdAt: string;
  updatedAt: string;
}

export interface BusinessRow {
  businessId: string;
  name: string;
  verificationStatus: string;
  accounts: number;
  createdAt: string;
}

export const createBusiness = (name: string, ...extra: string[]) =>
  vasJson<Created>(["business", "create", "--name", name, ...extra, "--json"]);

export async function keyStatusOf(businessId: string): Promise<KeySummary | undefined> {
  return (await vasJson<KeySummary[]>(["key", "list", businessId, "--json"]))[0];
}

export async function keyStatus(businessId: string, apiKey: string): Promise<string | undefined> {
  const keys = await vasJson<KeySummary[]>(["key", "list", businessId, "--json"]);
  return keys.find((key) => key.prefix === apiKey.slice(0, key.prefix.length))?.status;
}

/** A fresh directory with its own database and no master key anywhere. */
export function freshEnv(): { dir: string; env: NodeJS.ProcessEnv } {
  const caseDir = path.join(dir, `case-${++caseCounter}`);
  return { dir: caseDir, env: { DATABASE_URL: `sqlite:${caseDir}/vas.db`, DATA_DIR: caseDir } };
}
