// Module hooks for scripts/walks.ts: every src/ module is compiled with a call at the top of each
// function body naming the function's room, so that the rooms a request runs through are counted
// from the code that ran, not by reading it. A room is a folder directly under src/ or a file
// directly in it (docs/architecture.md). Tests' files and everything outside src/ load as usual.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const SRC = new URL("../../src/", import.meta.url).href;

export async function load(url, context, nextLoad) {
  if (process.env.WALK_DEBUG && url.includes("/src/")) console.error(url);
  if (!url.startsWith(SRC) || !url.endsWith(".ts") || url.endsWith(".test.ts")) {
    return nextLoad(url, context);
  }
  const file = url.slice(SRC.length);
  const room = file.includes("/") ? file.slice(0, file.indexOf("/")) : file.replace(/\.ts$/, "");
  const path = fileURLToPath(url);
  const output = ts.transpileModule(await readFile(path, "utf8"), {
    fileName: path,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    transformers: { before: [entries(room, file)] },
  });
  return { format: "module", source: output.outputText, shortCircuit: true };
}

/** Puts `globalThis.__vasWalk(room, "file:line")` first in every function body of the file. */
const entries = (room, file) => (context) => {
  const f = context.factory;
  const mark = (node, source) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    return f.createExpressionStatement(
      f.createCallExpression(
        f.createPropertyAccessExpression(f.createIdentifier("globalThis"), "__vasWalk"),
        undefined,
        [f.createStringLiteral(room), f.createStringLiteral(`${file}:${line}`)],
      ),
    );
  };
  return (source) => {
    const visit = (node) => {
      const visited = ts.visitEachChild(node, visit, context);
      if (!ts.isFunctionLike(visited) || !("body" in visited) || !visited.body) return visited;
      const old = visited.body;
      const body = ts.isBlock(old)
        ? f.updateBlock(old, [mark(node, source), ...old.statements])
        : f.createBlock([mark(node, source), f.createReturnStatement(old)], true);
      // Only the body changes, whatever kind of function this is.
      return ts.visitEachChild(visited, (child) => (child === old ? body : child), context);
    };
    return ts.visitNode(source, visit);
  };
};
