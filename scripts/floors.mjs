// The floors, checked (`npm run lint`): dependency-cruiser's rules (.dependency-cruiser.cjs: no
// cycle between files, no import up the floors, no storage in a front, no storage row type in
// the domain but from the files it lists), and what the rules cannot say: no cycle between
// rooms, a room being a folder directly under src/ or a file directly in it, and no file listed
// as still importing row types that is gone. Exits 1 when anything is found, naming each import
// that breaks a rule, each circle of rooms and each listed file that is gone. And, from the
// syntax (scripts/storage-types.mjs), that no file outside storage and compose/ imports a type
// storage declares but its handles and a listed, shrinking remainder, whose count it prints.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { checkStorageTypes } from "./storage-types.mjs";

const graph = JSON.parse(
  execFileSync("npx", ["depcruise", "src", "--config", ".dependency-cruiser.cjs", "--output-type", "json"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  }),
);
const violations = graph.summary.violations;
// A listed file that is gone matches no module, so the rule that requires its import never runs.
const cruised = new Set(graph.modules.map((module) => module.source));
const rowTypeImporters = createRequire(import.meta.url)("../.dependency-cruiser.cjs").required.find(
  (rule) => rule.name === "row-type-importers-listed-exactly",
);
const gone = rowTypeImporters.module.path.filter(
  (pattern) => ![...cruised].some((f) => new RegExp(pattern).test(f)),
);
for (const pattern of gone)
  console.error(`${rowTypeImporters.name}: ${pattern} is listed but no such file exists`);
for (const v of violations) {
  const path = v.cycle
    ? [v.from, ...v.cycle.map((step) => step.name ?? step)].join(" -> ")
    : v.rule.name === rowTypeImporters.name
      ? `${v.from} is listed but imports no storage row type`
      : `${v.from} -> ${v.to}`;
  console.error(`${v.rule.name}: ${path}`);
}
const room = (file) => {
  const [, first, rest] = /^src\/([^/]+)(\/.*)?$/.exec(file) ?? [];
  return first === undefined ? undefined : rest === undefined ? first.replace(/\.ts$/, "") : first;
};
const edges = new Map();
for (const module of graph.modules) {
  const from = room(module.source);
  if (!from) continue;
  for (const dependency of module.dependencies) {
    const to = room(dependency.resolved);
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    const targets = edges.get(from);
    if (!targets.has(to)) targets.set(to, `${module.source} -> ${dependency.resolved}`);
  }
}

// Tarjan's strongly connected components: every component of two rooms or more is a circle.
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
let next = 0;
const visit = (node) => {
  index.set(node, next);
  low.set(node, next++);
  stack.push(node);
  onStack.add(node);
  for (const target of edges.get(node)?.keys() ?? []) {
    if (!index.has(target)) {
      visit(target);
      low.set(node, Math.min(low.get(node), low.get(target)));
    } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)));
  }
  if (low.get(node) === index.get(node)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) circles.push(component.sort());
  }
};
for (const node of edges.keys()) if (!index.has(node)) visit(node);

const storageTypes = checkStorageTypes(new URL("..", import.meta.url).pathname);
for (const problem of storageTypes.problems) console.error(problem);
console.log(
  `floors: ${storageTypes.remaining} imports of ${storageTypes.names} storage-declared types outside storage and compose/ (a remainder that may only shrink: scripts/storage-types.mjs)`,
);
if (
  circles.length === 0 &&
  violations.length === 0 &&
  gone.length === 0 &&
  storageTypes.problems.length === 0
) {
  console.log(`floors: no import runs up, no cycle (${graph.summary.totalCruised} files)`);
  process.exit(0);
}
for (const circle of circles) {
  console.error(`rooms in a circle: ${circle.join(", ")}`);
  for (const from of circle) {
    for (const [to, example] of edges.get(from) ?? []) {
      if (circle.includes(to)) console.error(`  ${from} -> ${to} (${example})`);
    }
  }
}
process.exit(1);
