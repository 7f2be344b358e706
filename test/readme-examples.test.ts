import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import ts from "typescript";
import { type RepositoryProcess, readyAddress, startProcess } from "./helpers/server-process.js";
import { webClient } from "./helpers/web-client.js";

// The README's quick start, run as a reader runs it, copied and pasted with no edits: its shell
// blocks in order in one shell ("in the same shell as above"), its JavaScript and TypeScript
// saved under the names its prose gives and run with the commands it gives, against what
// `npm start` runs, in a directory that looks like a fresh checkout after `npm install` (its own
// build in dist/, no data/). Nothing is set but PORT=0 for the server (a free port, not 3000) and,
// in the shell, VAS_BASE_URL pointing there, as the README says to when the service runs elsewhere.

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..");
const README = readFileSync(path.join(ROOT, "README.md"), "utf8");
const START = (
  JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }
).scripts.start;

/**
 * dist/ as `npm install` builds it (its prepare script: tsc over tsconfig.build.json, then the
 * dashboard's files copied), from this tree rather than the shared dist/. Each file is
 * transpiled alone, which is what tsc emits for code under `isolatedModules`, without the type
 * check (npm run typecheck's job): seconds instead of half a minute.
 */
function build(outDir: string): void {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, "tsconfig.build.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => assert.fail(String(diagnostic.messageText)),
    },
  );
  assert.ok(config);
  const compilerOptions = {
    ...config.options,
    module: ts.ModuleKind.ES2022,
    sourceMap: false,
    declaration: false,
  };
  // A declaration file (.d.ts) has no output.
  for (const file of config.fileNames.filter((name) => !name.endsWith(".d.ts"))) {
    const { outputText } = ts.transpileModule(readFileSync(file, "utf8"), {
      compilerOptions,
      fileName: file,
    });
    const target = path.join(outDir, path.relative(path.join(ROOT, "src"), file)).replace(/\.ts$/, ".js");
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  for (const folder of ["views", "assets"]) {
    cpSync(path.join(ROOT, "src/dashboard", folder), path.join(outDir, "dashboard", folder), {
      recursive: true,
    });
  }
}

/** A fenced block of the README, with the heading it is under and the prose just before it. */
interface Block {
  heading: string;
  lang: string;
  code: string;
  prose: string;
}

function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let heading = "";
  let prose: string[] = [];
  let open: { lang: string; lines: string[] } | undefined;
  for (const line of markdown.split("\n")) {
    if (open) {
      if (line.startsWith("```")) {
        blocks.push({
          heading,
          lang: open.lang,
          code: `${open.lines.join("\n")}\n`,
          prose: prose.join("\n"),
        });
        open = undefined;
        prose = [];
      } else open.lines.push(line);
    } else if (line.startsWith("```")) open = { lang: line.slice(3).trim(), lines: [] };
    else if (/^#+ /.test(line)) {
      heading = line.replace(/^#+ /, "");
      prose = [];
    } else prose.push(line);
  }
  return blocks;
}

/** A step of the quick start: shell code as it stands, or a file to save and the command to run it. */
type Step = { shell: string } | { file: string; code: string; shell: string };

function quickStart(): Step[] {
  const chosen = fencedBlocks(README).filter(
    (block) =>
      [
        "A first request",
        "A payment, end to end (sandbox)",
        "The quick-start business in the dashboard",
      ].includes(block.heading) ||
      (block.heading === "The TypeScript client" && block.lang === "ts"),
  );
  // If the quick start gains or loses a block, this test must be told what to expect of it.
  assert.deepEqual(
    chosen.map((block) => block.lang),
    ["sh", "sh", "js", "sh", "sh", "ts"],
  );
  return chosen.map((block) => {
    if (block.lang === "sh") return { shell: block.code };
    const said = /save\b[^`]*`([^`]+)`[^`]*?\brun\s+`([^`]+)`/.exec(block.prose);
    assert.ok(said, `the prose before the ${block.lang} block says what to save it as and how to run it`);
    return { file: said[1] ?? "", code: block.code, shell: `${said[2]}\n` };
  });
}

/** Every JSON object in a shell's output (curl's answers follow one another on a line). */
function jsonAnswers(text: string): Array<{ status: string; data: Record<string, unknown> }> {
  const found = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"' && depth > 0) inString = true;
    else if (c === "{" && depth++ === 0) start = i;
    else if (c === "}" && depth > 0 && --depth === 0) found.push(JSON.parse(text.slice(start, i + 1)));
  }
  return found;
}

describe("the README's quick start, run as written", () => {
  let dir: string;
  let server: RepositoryProcess<string>;
  let outputs: string[];
  let stderr: string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "vas-readme-"));
    build(path.join(dir, "dist"));
    for (const entry of ["package.json", "node_modules"])
      symlinkSync(path.join(ROOT, entry), path.join(dir, entry));

    const home = process.env.HOME ?? dir;
    server = await startProcess(
      "sh",
      ["-c", `exec ${START}`],
      { cwd: dir, env: { HOME: home, PORT: "0" } },
      "npm start",
      readyAddress,
    );

    const steps = quickStart();
    const script = steps
      .map((step, index) => {
        if ("file" in step) writeFileSync(path.join(dir, step.file), step.code);
        return `printf '\\n@@@ step %s\\n' ${index}\n${step.shell}`;
      })
      .join("");
    writeFileSync(path.join(dir, "quick-start.sh"), script);
    const ran = await run("sh", ["-e", "quick-start.sh"], {
      cwd: dir,
      timeout: 60_000,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        VAS_BASE_URL: server.ready,
        // npm's own chatter about newer versions of itself is not the README's business.
        npm_config_update_notifier: "false",
      },
    });
    outputs = ran.stdout.split(/\n@@@ step \d+\n/).slice(1);
    stderr = ran.stderr;
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("every step ran without a word on stderr", () => {
    assert.equal(outputs.length, 6);
    assert.equal(stderr, "");
  });

  test("a first request: the business is created, then curl generates and lists, signed", () => {
    const [created] = jsonAnswers(outputs[0] ?? "") as unknown as Array<Record<string, string>>;
    assert.equal(created?.verificationStatus, "completed");
    assert.match(created?.apiKey ?? "", /^vak_/);
    const [generated, list, ...rest] = jsonAnswers(outputs[1] ?? "");
    assert.deepEqual(rest, []);
    assert.equal(generated?.status, "success");
    assert.equal(generated?.data.accountName, "Acme Ltd/Ada Obi");
    assert.equal(list?.status, "success");
  });

  test("the Node example generates and lists: two successes", () => {
    const statuses = [...(outputs[2] ?? "").matchAll(/httpStatus: (\d+),\s+status: '(\w+)'/g)];
    assert.deepEqual(
      statuses.map(([, code, status]) => [Number(code) >= 200 && Number(code) < 300, status]),
      [
        [true, "success"],
        [true, "success"],
      ],
      outputs[2],
    );
    assert.match(outputs[2] ?? "", /accountName: 'Acme Ltd\/Bola Ade'/);
  });

  test("a payment, end to end: into the account curl generated, then read back", () => {
    const ada = jsonAnswers(outputs[1] ?? "")[0]?.data.accountNumber;
    const [paid, account, transactions, balance, ...rest] = jsonAnswers(outputs[3] ?? "");
    assert.deepEqual(rest, []);
    for (const answer of [paid, account, transactions, balance])
      assert.equal(answer?.status, "success", outputs[3]);
    assert.equal(paid?.data.accountNumber, ada);
    assert.equal(paid?.data.amount, 150_000);
    assert.equal(account?.data.accountNumber, ada);
    assert.equal(account?.data.totalReceived, 150_000);
    assert.equal(balance?.data.available, 150_000);
  });

  test("the dashboard: the link printed from the invitation's mail signs the owner in to Acme Ltd", async () => {
    const output = outputs[4] ?? "";
    assert.match(output, /^Invitation mailed to owner@example\.com: /m);
    const link = /^(http\S+\/dashboard\/join\?token=[\w-]+)$/m.exec(output)?.[1];
    assert.ok(link, output);
    // The link starts with PUBLIC_URL, the CLI's default address; the server took another port.
    const { pathname, search } = new URL(link);
    const browser = webClient(server.ready);
    const invitation = await browser.get(`${pathname}${search}`);
    assert.equal(invitation.status, 200);
    assert.match(invitation.body, /You are invited to <strong>Acme Ltd<\/strong> as <strong>Owner<\/strong>/);
    const password = "correct horse battery staple quick start";
    const joined = await browser.post("/dashboard/join", {
      token: new URLSearchParams(search).get("token") ?? "",
      password,
      confirm: password,
    });
    assert.equal(joined.status, 303, joined.body);
    const home = await browser.get(joined.location ?? "");
    assert.equal(home.status, 200);
    assert.match(home.body, /Acme Ltd/);
    const payments = await browser.get("/dashboard/transactions");
    assert.match(payments.body, /Chinedu Okafor/, "the quick start's payment is there");
  });

  test("the TypeScript client example runs with tsx: accounts, a payment, the balance, a typed refusal", () => {
    const lines = (outputs[5] ?? "").trim().split("\n");
    assert.match(lines[0] ?? "", /^\d{10} Acme Ltd\/Chidi Eze$/);
    assert.match(lines.at(-1) ?? "", /^400 VALIDATION_FAILED /);
  });
});
