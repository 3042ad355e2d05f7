/**
 * A CPU-bound neighbour, forked by bench/cpu-neighbour.ts: it keeps one core busy with trivial
 * arithmetic, never sleeping, so a bench can measure what a machine shared with a busy process
 * does to its figures. It spins in slices of SLICE_MS and lets its event loop turn between them
 * (a busy loop would never see a message), so it answers `'cpu'` with the CPU it spent since it
 * said `'ready'`, and exits as soon as its IPC channel closes: when its parent disconnects, ends
 * or dies.
 */

/** How long one slice spins before the event loop may handle the parent's message or departure. */
const SLICE_MS = 50;
/** Arithmetic steps between two looks at the clock. */
const STEPS_PER_LOOK = 10_000;

/** What the neighbour answers when asked `'cpu'`: its CPU in ms since `'ready'`. */
export interface NeighbourCpu {
  cpuMs: number;
}

let sink = 0;

/** One slice of spinning, then the next slice after the event loop had its turn. */
function spin(): void {
  const until = performance.now() + SLICE_MS;
  while (performance.now() < until) {
    for (let i = 0; i < STEPS_PER_LOOK; i += 1) sink = (sink * 31 + i) | 0;
  }
  setImmediate(spin);
}

if (!process.send) throw new Error('bench/neighbour.ts runs as a forked child, with an IPC channel');
const since = process.cpuUsage();
process.on('disconnect', () => process.exit(0));
process.on('message', (message) => {
  if (message !== 'cpu') return;
  const used = process.cpuUsage(since);
  const answer: NeighbourCpu = { cpuMs: (used.user + used.system) / 1000 };
  process.send?.(answer);
});
process.send('ready');
spin();
