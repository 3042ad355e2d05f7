/**
 * `npm run bench:sandbox-catalogue`: how long a sandbox's generated catalogue takes to write
 * (`npm run admin -- sandbox generate`): BENCH_PROPERTIES (default 1,000) properties with 366
 * nights each, distributed to two channels, through the platform's services on a scratch database
 * of the PostgreSQL at DATABASE_URL and a Temporal dev server, as a deployment's worker or the
 * operator's command writes it. Then the same run again, which must change nothing. Prints the
 * seconds (records, nights, distribution, total) of both runs, the CPU seconds the first took in
 * this process and in PostgreSQL's backends (a figure a machine shared with other work does not
 * inflate as it does the elapsed time; the Temporal server's own is not counted), and the machine.
 */
import { DEFAULT_SANDBOX_CHANNELS, generateSandbox } from '../services/sandbox-catalogue.ts';
import { machine } from './machine.ts';
import { postgresCpu, postgresCpuBetween } from './postgres-cpu.ts';
import { standUp } from './service-stand.ts';

const PROPERTIES = Number(process.env.BENCH_PROPERTIES ?? 1000);

const stand = await standUp({ env: { SVC_ENVIRONMENT: 'sandbox' } });
try {
  const request = { seed: 1, properties: PROPERTIES, channels: DEFAULT_SANDBOX_CHANNELS };
  const backends = (sql: string) => stand.orm.em.fork().execute<{ pid: number }[]>(sql);
  const cpuBefore = { node: process.cpuUsage(), postgres: await postgresCpu(backends) };
  const first = await generateSandbox(stand.deps, request);
  const nodeCpu = process.cpuUsage(cpuBefore.node);
  const postgresMs = postgresCpuBetween(cpuBefore.postgres, await postgresCpu(backends));
  const again = await generateSandbox(stand.deps, request);
  if (again.changes.events !== 0 || again.changes.nights_changed !== 0)
    throw new Error(`a second run changed something: ${JSON.stringify(again.changes)}`);
  console.log(
    JSON.stringify(
      {
        [`generate ${PROPERTIES} properties x 366 nights, seconds`]: first.seconds,
        'the same again (changes nothing), seconds': again.seconds,
        'CPU seconds of the first run': {
          node: Number(((nodeCpu.user + nodeCpu.system) / 1e6).toFixed(1)),
          postgres: postgresMs === null ? null : Number((postgresMs / 1000).toFixed(1)),
        },
        records: first.records,
        changes: first.changes,
        machine: machine(),
      },
      null,
      2,
    ),
  );
} finally {
  await stand.close();
}
