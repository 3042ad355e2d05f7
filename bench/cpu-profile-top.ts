/**
 * `node bench/cpu-profile-top.ts <file.cpuprofile> [N] [from]`: the top N (default 25) functions
 * of a V8 CPU profile (`node --cpu-prof`) by self time, each with its share of the busy time (idle
 * left out), the project's functions by total time (their callees' included), then the busy time
 * by where the code lives: a package of node_modules, the project's own files, Node's internals,
 * garbage collection, the program itself (native code V8 cannot name). With `from`, the samples
 * before the first whose stack holds a function whose `name file:line` contains it are left out
 * (the start of a server, before its first request). One JSON document, to set two processes side by side.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, top = '25', from] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/cpu-profile-top.ts <file.cpuprofile> [N]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const IDLE = new Set(['(idle)', '(program)', '(root)']);

/** Where a frame's code lives: a package, the project, Node, or a V8 pseudo-frame. */
function place(url: string, name: string): string {
  if (name === '(garbage collector)') return '(garbage collector)';
  if (name === '(program)') return '(program)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:') || url === '') return 'node (internals and native)';
  return 'project';
}

const parentOf = new Map<number, number>();
for (const node of profile.nodes as (ProfileNode & { children?: number[] })[])
  for (const child of node.children ?? []) parentOf.set(child, node.id);

/** A frame's name as the lists print it: `function file:line`, the file under the repository. */
function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const short = url.replace(/^file:\/\/.*?\/(node_modules\/|(?=[a-z-]+\/))/, '');
  return `${functionName || '(anonymous)'} ${short}${url ? `:${lineNumber + 1}` : ''}`;
}

/** The frames of a sample's stack, innermost first. */
function stack(id: number): ProfileNode[] {
  const frames: ProfileNode[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) frames.push(byId.get(at)!);
  return frames;
}

const self = new Map<string, number>();
const total = new Map<string, number>();
const places = new Map<string, number>();
let busy = 0;
let idle = 0;
let started = from === undefined;
profile.samples.forEach((id, i) => {
  const { functionName, url } = byId.get(id)!.callFrame;
  const ms = (profile.timeDeltas[i] ?? 0) / 1000;
  const frames = stack(id);
  if (!started) started = frames.some((frame) => frameName(frame).includes(from!));
  if (!started) return;
  if (functionName === '(idle)') {
    idle += ms;
    return;
  }
  busy += ms;
  self.set(frameName(byId.get(id)!), (self.get(frameName(byId.get(id)!)) ?? 0) + ms);
  const project = new Set(
    frames.filter((frame) => place(frame.callFrame.url, frame.callFrame.functionName) === 'project').map(frameName),
  );
  for (const name of project) total.set(name, (total.get(name) ?? 0) + ms);
  const where = place(url, functionName);
  places.set(where, (places.get(where) ?? 0) + ms);
});

const share = (ms: number) => `${((100 * ms) / busy).toFixed(1)} %`;
const ranked = (map: Map<string, number>, n: number) =>
  [...map]
    .filter(([name]) => !IDLE.has(name))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => ({ name, ms: Math.round(ms), share: share(ms) }));

console.log(
  JSON.stringify(
    {
      file,
      busy_ms: Math.round(busy),
      idle_ms: Math.round(idle),
      top_self: ranked(self, Number(top)),
      project_total: ranked(total, Number(top)),
      by_place: ranked(places, 20),
    },
    null,
    2,
  ),
);
