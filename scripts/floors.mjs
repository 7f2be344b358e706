// The floors, checked (`npm run lint`): dependency-cruiser's rules (.dependency-cruiser.cjs: no
// cycle between files, no import up the floors, no storage in a front, no storage row type in
// the domain), and what the rules cannot say: no cycle between rooms, a room being a folder
// directly under src/ or a file directly in it. And, from the syntax (scripts/storage-types.mjs),
// that no file outside storage and compose/ imports a type storage declares but its handles, nor
// (but the Virtual Bank's own server) a database driver or the query builder, nor builds a query.
// Exits 1 when anything is found, naming each import that breaks a rule and each circle of rooms.
import { execFileSync } from "node:child_process";
import { checkQueries, checkStorageTypes } from "./storage-types.mjs";

const graph = JSON.parse(
  execFileSync("npx", ["depcruise", "src", "--config", ".dependency-cruiser.cjs", "--output-type", "json"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  }),
);
const violations = graph.summary.violations;
for (const v of violations) {
  const path = v.cycle
    ? [v.from, ...v.cycle.map((step) => step.name ?? step)].join(" -> ")
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

const root = new URL("..", import.meta.url).pathname;
const storageTypes = [...checkStorageTypes(root), ...checkQueries(root)];
for (const problem of storageTypes) console.error(problem);
if (circles.length === 0 && violations.length === 0 && storageTypes.length === 0) {
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
