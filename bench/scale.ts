/**
 * `npm run bench:scale`: what the service's reads, writes, start-up and retention cost at 1x, 10x
 * and 100x the data, and how they grow. A size is one channel seeing 1,000 x properties, with
 * 37 days of its event log (about 100,000 x events: catalogue writes, price changes and the
 * daily roll), and its webhook endpoint's deliveries and attempts (about 50,000 x each) over the
 * last 36 days: bench/scale-plan.ts says what each row is and when it happened.
 *
 * Each size lives in its own database (`bench_scale_<x>` on the PostgreSQL at DATABASE_URL),
 * built once and kept (bench/scale-build.ts): a build has the service write the rows it copies,
 * then loads the rest in SQL. Each run appends the night's roll to each size, starts each size's
 * service as `npm start` runs it on a fresh Temporal dev server, times it to its first served
 * request, stops the certificate-expiry catch-up its start asked for (on a fresh Temporal that
 * first pass makes a workflow per property, hours at 100x; a deployment's restarts find them
 * running) and lets it finish the rest (bench/scale-size.ts); then, with every
 * size's service running, times each case (SCALE_WARM_UP, default 20, requests, then
 * SCALE_SAMPLES, default 200) over HTTPS, its requests to the sizes interleaved so that a machine
 * shared with other work weighs on every size alike (bench/scale-measure.ts); then stops them and
 * times one housekeeping pass per size on the data as it was built, whose oldest day is past the
 * window (bench/scale-retention.ts).
 *
 * SCALE_SIZES (default `1,10,100`) chooses the sizes: `1,10` for a quick run. Prints per case and
 * size the median and 99th percentile in milliseconds, their growth from the smallest size to the
 * largest and the verdict against the goals (bench/scale-report.ts), the start-up and retention
 * figures, each size's rows, database size and build time, the disk and the machine.
 * SCALE_STARTUP_TIMEOUT_S (default 600): how long a start may take before its size's cases are
 * left out. SCALE_QUIET_TIMEOUT_S (default 600): how long the cases wait, once it serves, for the
 * service to finish what its start left it to do in the background (bench/scale-service.ts
 * `untilQuiet`); they then run beside that work, and the figures say so. SCALE_MAX_AGE_HOURS
 * (default 24): an older size is built again. SCALE_WORK_DIR (default `<tmp>/bench-scale`): the
 * services' data directories and logs.
 */
import { statfs } from 'node:fs/promises';
import os from 'node:os';
import { machine } from './machine.ts';
import { SIZES } from './scale-plan.ts';
import { caseFigures, sizeKey, startupFigures, table } from './scale-report.ts';
import { startRun } from './scale-run.ts';
import { measureCases } from './scale-measure.ts';
import type { RetentionFigures } from './scale-retention.ts';
import { dataFigures, openSize, retentionPass, type SizeSession } from './scale-size.ts';

const sizes = (process.env.SCALE_SIZES ?? SIZES.join(',')).split(',').map((text) => Number(text.trim()));
if (sizes.some((factor) => !SIZES.includes(factor)))
  throw new Error(`SCALE_SIZES lists sizes among ${SIZES.join(', ')}: ${process.env.SCALE_SIZES}`);

const run = await startRun();
const loads: number[][] = [];

/** Every size started, side by side, the cases interleaved across them, then each size's retention. */
async function measure() {
  const sessions: SizeSession[] = [];
  const measured: { session: SizeSession; retention: RetentionFigures; data: Record<string, number | string> }[] = [];
  try {
    for (const factor of [...new Set(sizes)].sort((a, b) => a - b)) sessions.push(await openSize(run, factor));
    loads.push(os.loadavg());
    const timings = await measureCases(sessions, run.platformToken, (line) => run.say(`every size: ${line}`));
    loads.push(os.loadavg());
    for (const session of sessions) {
      run.say(`${session.size.factor}x: one housekeeping pass`);
      measured.push({ session, retention: await retentionPass(session), data: await dataFigures(session) });
    }
    return { timings, measured };
  } finally {
    for (const session of sessions) await session.close();
  }
}

const { timings, measured } = await measure();
const ms = Object.fromEntries([...timings].map(([name, bySize]) => [name, caseFigures(bySize)]));
const disk = await statfs(run.workDir);
const document = {
  machine: machine({
    postgresql: '15',
    load_average_before_and_after_the_cases: loads.map((l) => l.map((v) => Number(v.toFixed(2)))),
  }),
  sizes: Object.fromEntries(measured.map(({ session, data }) => [sizeKey(session.size.factor), data])),
  'requests per case': {
    warm_up: Number(process.env.SCALE_WARM_UP ?? 20),
    timed: Number(process.env.SCALE_SAMPLES ?? 200),
  },
  'ms, median and p99': ms,
  'start-up to the first served request, s': startupFigures(
    new Map(measured.map(({ session }) => [session.size.factor, session.startupMs])),
    run.startupTimeoutMs / 1000,
  ),
  'certificate-expiry catch-up left when stopped, properties': Object.fromEntries(
    measured.map(({ session: { size, catchUp } }) => [
      sizeKey(size.factor),
      catchUp === null ? 'not serving' : `${catchUp.remaining} of ${catchUp.total}`,
    ]),
  ),
  'from stopping the catch-up until the service was quiet, s': Object.fromEntries(
    measured.map(({ session: { size, startupMs, quietMs } }) => [
      sizeKey(size.factor),
      startupMs === null
        ? 'not serving'
        : quietMs === null
          ? `still busy after ${run.quietTimeoutMs / 1000} s`
          : Math.round(quietMs / 100) / 10,
    ]),
  ),
  'one housekeeping pass, oldest day past the window': Object.fromEntries(
    measured.map(({ session: { size }, retention }) => [
      sizeKey(size.factor),
      {
        seconds: retention.seconds,
        'rows past the window': retention.past,
        'rows past the window after it': retention.left,
        ...(retention.failed.length > 0 ? { 'failed steps': retention.failed.join(', ') } : {}),
      },
    ]),
  ),
  disk: {
    'bench databases, MiB': measured.reduce((sum, { data }) => sum + Number(data.database_mib), 0),
    'free on the work directory filesystem, GiB': Math.round((disk.bavail * disk.bsize) / 2 ** 30),
  },
};
process.stderr.write(table(ms));
console.log(JSON.stringify(document, null, 2));
