// npm run bench:profile -- <file.cpuprofile> [--top 25]
// Where a CPU profile's time went: the share of its samples by package or area of the service
// (idle, GC, node:*, dist/<room>, a dependency) and by function, self time only. What issue 29
// asks to look at before cutting anything (docs/performance.md).

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface Profile {
  nodes: { id: number; callFrame: CallFrame }[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" } },
});
const [file] = positionals;
if (!file) throw new Error("usage: npm run bench:profile -- <file.cpuprofile> [--top 25]");
const top = Number(values.top);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));

/** The package or area a frame's code belongs to. */
function areaOf({ functionName, url }: CallFrame): string {
  if (url === "") return functionName; // (idle), (garbage collector), (program)
  const dependency = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1] as string;
  const room = /\/dist\/([^/]+)/.exec(url);
  if (room) return `dist/${room[1]}`;
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
  return url;
}

const byArea = new Map<string, number>();
const byFunction = new Map<string, number>();
let total = 0;
for (const [i, id] of profile.samples.entries()) {
  const frame = frames.get(id);
  const spent = profile.timeDeltas[i] ?? 0;
  if (!frame) continue;
  total += spent;
  const area = areaOf(frame);
  const where = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber + 1}`;
  byArea.set(area, (byArea.get(area) ?? 0) + spent);
  byFunction.set(where, (byFunction.get(where) ?? 0) + spent);
}

const lines = (spent: Map<string, number>) =>
  [...spent]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, time]) => `${((100 * time) / total).toFixed(1).padStart(5)} %  ${name}`)
    .join("\n");
console.log(
  `${(total / 1e6).toFixed(1)} s sampled\n\nby package or area\n${lines(byArea)}\n\nby function (self time)\n${lines(byFunction)}`,
);
