#!/usr/bin/env node
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { runCli } from "./run.js";

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  },
  ...(process.stdin.isTTY ? { askHidden } : {}),
  untilStopped: () =>
    new Promise<void>((resolve) => {
      process.once("SIGINT", () => resolve());
      process.once("SIGTERM", () => resolve());
    }),
});
process.exitCode = code;
// Done: a connection still open (a mail server that never answers) does not hold the command
// past what it said. Exit once what it wrote is flushed.
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));

/** Asks at the terminal; the answer is read but not echoed back to it. */
function askHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    process.stderr.write(question);
    // The answer is read from the terminal but not echoed back to it.
    const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
    const prompt = createInterface({ input: process.stdin, output: silent, terminal: true });
    prompt.question("", (answer) => {
      prompt.close();
      process.stderr.write("\n");
      resolve(answer);
    });
  });
}
