/**
 * `node bench/runs.ts bench/X.ts [bench options]`, what every `npm run bench:*` runs: the bench
 * BENCH_RUNS times (default 3), one run after the other, each a child process `node bench/X.ts`
 * with this environment and stderr, then ONE JSON document of the runs, each figure the median,
 * min and max of the runs (bench/runs-merge.ts says how they merge). A single run of a shared
 * machine tells nothing of its spread: two runs of one build have differed by more than the
 * change measured. Fewer than 3 runs are allowed, with a warning; for one run without the
 * runner, run the bench itself: `node bench/X.ts` prints that run's own document, as before.
 *
 * The bench's stdout is read for its JSON document, the last thing it prints; its other lines
 * (the Temporal dev server's banner, say) are passed on to stderr. Each run's document is written
 * to BENCH_OUT_DIR (default: a fresh directory under the system's temporary one) as
 * `run-<k>.json`, and the merged document names that directory (`raw_runs_dir`).
 *
 * Stops, exit status 1 and no merged document, at the first run that exits non-zero or prints no
 * JSON document, and at the first run printing a figure that cannot be (a negative time or CPU,
 * a NaN, an infinity; runs-merge.ts `impossibleFigures`): that is a bug in the bench, not a
 * figure to take a median of. BENCH_RUNS and BENCH_OUT_DIR are the runner's and are not passed
 * to the bench.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { impossibleFigures, jsonDocument, mergedDocument, type Json } from './runs-merge.ts';

const DEFAULT_RUNS = 3;
/** Below this, a median is one run or the mean of two, and min and max are no spread. */
const HONEST_RUNS = 3;
/** The runner's own variables, kept from the bench (bench/listings.ts once read BENCH_RUNS too). */
const RUNNER_VARIABLES = ['BENCH_RUNS', 'BENCH_OUT_DIR'];
const USAGE = 'usage: node bench/runs.ts bench/<bench>.ts [options of the bench]';

/** What one run of the bench left: how it ended and all it printed on stdout. */
interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
}

/** Something the runner must say on stderr before it exits 1. */
class Stop extends Error {}

/** BENCH_RUNS as a whole number of at least 1; the default when unset. */
function runCount(value: string | undefined): number {
  const runs = value === undefined || value === '' ? DEFAULT_RUNS : Number(value);
  if (!Number.isInteger(runs) || runs < 1) throw new Stop(`BENCH_RUNS must be a whole number, 1 or more: ${value}`);
  if (runs < HONEST_RUNS)
    process.stderr.write(`bench/runs.ts: warning: ${runs} run(s) give no honest spread; ${HONEST_RUNS} or more do\n`);
  return runs;
}

/** Where the runs' documents go: BENCH_OUT_DIR (made if missing), else a fresh temporary directory. */
async function outputDirectory(chosen: string | undefined): Promise<string> {
  if (!chosen) return mkdtemp(path.join(os.tmpdir(), 'bench-runs-'));
  await mkdir(chosen, { recursive: true });
  return path.resolve(chosen);
}

/** This environment without the runner's own variables: the bench's. */
function benchEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of RUNNER_VARIABLES) delete env[name];
  return env;
}

/**
 * One run of the bench as a child process, stdout captured. Lines before the first one opening
 * with `{` (where the JSON document can start) go on to stderr as they come, so a long bench's
 * banners stay live; the rest is held until the run ends. A SIGTERM to the runner ends the child too.
 */
function runOnce(bench: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bench, ...args], {
      env: benchEnvironment(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const forwardTerm = () => child.kill('SIGTERM');
    process.on('SIGTERM', forwardTerm);
    let stdout = '';
    let forwarded = 0;
    let holding = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      while (!holding) {
        const end = stdout.indexOf('\n', forwarded);
        if (end < 0 || stdout.startsWith('{', forwarded)) break;
        process.stderr.write(stdout.slice(forwarded, end + 1));
        forwarded = end + 1;
      }
      holding ||= stdout.startsWith('{', forwarded);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      process.off('SIGTERM', forwardTerm);
      resolve({ code, signal, stdout: stdout.slice(forwarded) });
    });
  });
}

/** A run's document, after checking it ended well and holds no impossible figure; else a Stop. */
async function documentOf(run: Run, k: number, dir: string): Promise<Json> {
  const found = jsonDocument(run.stdout);
  if (found?.before) process.stderr.write(`${found.before}\n`);
  if (run.code !== 0 || !found) {
    if (!found) process.stderr.write(run.stdout);
    const file = path.join(dir, `run-${k}.stdout`);
    await writeFile(file, run.stdout);
    const ended = run.code !== 0 ? `exited with ${run.signal ?? `code ${run.code}`}` : 'printed no JSON document';
    throw new Stop(`run ${k} ${ended} (its stdout: ${file}); no merged document`);
  }
  await writeFile(path.join(dir, `run-${k}.json`), `${JSON.stringify(found.document, null, 2)}\n`);
  const impossible = impossibleFigures(found.document);
  if (impossible.length > 0) {
    const list = impossible.map(({ path: at, value }) => `  run ${k}: ${at} = ${value}\n`).join('');
    throw new Stop(`run ${k} printed impossible figures, a bug in the bench:\n${list}no merged document`);
  }
  return found.document;
}

/** The runs, one after the other, then their merged document on stdout. */
async function main(): Promise<void> {
  const [bench, ...args] = process.argv.slice(2);
  if (!bench) throw new Stop(USAGE);
  const runs = runCount(process.env.BENCH_RUNS);
  const dir = await outputDirectory(process.env.BENCH_OUT_DIR);
  const documents: Json[] = [];
  for (let k = 1; k <= runs; k += 1) {
    process.stderr.write(`bench/runs.ts: run ${k} of ${runs}: node ${[bench, ...args].join(' ')}\n`);
    documents.push(await documentOf(await runOnce(bench, args), k, dir));
  }
  process.stderr.write(`bench/runs.ts: the runs' own documents are in ${dir}\n`);
  console.log(JSON.stringify(mergedDocument(documents, dir), null, 2));
}

try {
  await main();
} catch (error) {
  if (!(error instanceof Stop)) throw error;
  process.stderr.write(`bench/runs.ts: ${error.message}\n`);
  process.exitCode = 1;
}
