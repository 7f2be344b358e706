import { runCli } from "../../src/cli/run.js";
import { databaseUrl } from "./databases.js";
import { type Harness, TIER_LIMITS_OFF } from "./harness.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with this environment, collecting what it writes. */
export async function runVas(argv: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

/** The environment under which the CLI opens the harness's database, as an operator would. */
export function cliEnv(h: Harness, masterKey: Buffer): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: databaseUrl(h.database),
    DATA_DIR: h.dir,
    VAS_MASTER_KEY: masterKey.toString("hex"),
    NODE_ENV: "test",
    WEBHOOK_ALLOW_PRIVATE: "true",
    ...TIER_LIMITS_OFF,
  };
}
