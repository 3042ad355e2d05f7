/**
 * `npm run bench:sandbox-catalogue`: how long a sandbox's generated catalogue takes to write
 * (`npm run admin -- sandbox generate`): BENCH_PROPERTIES (default 1,000) properties with 366
 * nights each, distributed to two channels, through the platform's services on a scratch database
 * of the PostgreSQL at DATABASE_URL and a Temporal dev server, as a deployment's worker or the
 * operator's command writes it. Then the same run again, which must change nothing. Prints the
 * seconds (records, nights, total) of both runs and the machine.
 */
import { DEFAULT_SANDBOX_CHANNELS, generateSandbox } from '../services/sandbox-catalogue.ts';
import { machine } from './machine.ts';
import { standUp } from './service-stand.ts';

const PROPERTIES = Number(process.env.BENCH_PROPERTIES ?? 1000);

const stand = await standUp({ env: { SVC_ENVIRONMENT: 'sandbox' } });
try {
  const request = { seed: 1, properties: PROPERTIES, channels: DEFAULT_SANDBOX_CHANNELS };
  const first = await generateSandbox(stand.deps, request);
  const again = await generateSandbox(stand.deps, request);
  if (again.changes.events !== 0 || again.changes.nights_changed !== 0)
    throw new Error(`a second run changed something: ${JSON.stringify(again.changes)}`);
  console.log(
    JSON.stringify(
      {
        [`generate ${PROPERTIES} properties x 366 nights, seconds`]: first.seconds,
        'the same again (changes nothing), seconds': again.seconds,
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
