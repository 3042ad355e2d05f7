/**
 * One size of `bench:scale`: its database (built or kept), the night's roll appended, the service
 * spawned on a fresh Temporal dev server and timed to its first served request, the cases, then,
 * with the service stopped, the retention pass.
 */
import path from 'node:path';
import pg from 'pg';
import { issueKey, revokeKey } from '../admin/keys.ts';
import { loadTlsMaterial } from '../infra/tls.ts';
import https from 'node:https';
import { startReceiver } from './push-support.ts';
import { sizeDatabase, type SizeDatabase } from './scale-build.ts';
import { channelReads, emptyPolls, platformWrites, type CaseContext, type Timings } from './scale-cases.ts';
import { scaleClient } from './scale-http.ts';
import { appendRoll, numberProperties } from './scale-history.ts';
import { retentionCase, type RetentionFigures } from './scale-retention.ts';
import { pauseHousekeeping, startTemporal, type ScaleRun } from './scale-run.ts';
import { answers200, startService, untilQuiet } from './scale-service.ts';
import { HOOK_PATH } from './scale-template.ts';
import { standUp, type BenchStand } from './service-stand.ts';

export interface SizeFigures {
  size: SizeDatabase;
  startupMs: number | null;
  /** From the first served request until the service was quiet; null when it never was in time. */
  quietMs: number | null;
  timings: Timings;
  retention: RetentionFigures;
  data: Record<string, number | string>;
}

/** A key of the channel's with `scopes` (a channel holds two live keys at most). */
const issue = (stand: BenchStand, size: SizeDatabase, scopes: string) =>
  issueKey(stand.deps, { channel: size.context.channelName, scopes });

/** Revokes the channel's live keys: a run's keys outlive it. */
async function revokeAll(stand: BenchStand, sql: pg.Client, channelId: string): Promise<void> {
  const { rows } = await sql.query<{ id: string }>(
    'select id from api_key where channel_id = $1 and revoked_at is null',
    [channelId],
  );
  // Each is revoked in the database first; the signal to its lifecycle workflow fails when that
  // workflow lived on an earlier run's dev server, and the revocation stands.
  for (const { id } of rows) await revokeKey(stand.deps, id).catch(() => undefined);
}

async function dataFigures(sql: pg.Client, size: SizeDatabase): Promise<Record<string, number | string>> {
  const count = async (text: string) => Number((await sql.query<{ n: string }>(text)).rows[0]!.n);
  return {
    properties: await count("select count(*) as n from channel_resource where kind = 'property'"),
    events: await count('select count(*) as n from event'),
    deliveries: await count('select count(*) as n from webhook_delivery'),
    attempts: await count('select count(*) as n from webhook_attempt'),
    database_mib: Math.round((await count(`select pg_database_size('${size.name}') as n`)) / 2 ** 20),
    built_at: size.builtAt.toISOString(),
    ...(size.buildSeconds === null ? {} : { build_seconds: size.buildSeconds }),
  };
}

export async function measureSize(run: ScaleRun, factor: number): Promise<SizeFigures> {
  const temporal = await startTemporal();
  try {
    const size = await sizeDatabase(run, temporal.address, factor);
    const stand = await standUp({ databaseUrl: size.url, temporalAddress: temporal.address, env: run.serviceEnv });
    const sql = new pg.Client({ connectionString: size.url });
    await sql.connect();
    try {
      return await measure(run, size, stand, sql);
    } finally {
      await sql.end();
      await stand.close();
    }
  } finally {
    await temporal.stop();
  }
}

async function measure(run: ScaleRun, size: SizeDatabase, stand: BenchStand, sql: pg.Client): Promise<SizeFigures> {
  const { plan, context: history } = size;
  const say = (line: string) => run.say(`${plan.factor}x: ${line}`);
  await numberProperties(sql, plan, history);
  await appendRoll(sql, plan, history, new Date());
  await sql.query('analyze event');
  await revokeAll(stand, sql, history.channelId);
  const full = (await issue(stand, size, 'read:catalog,read:ari,manage:webhooks')).key;
  const catalog = await issue(stand, size, 'read:catalog');
  await pauseHousekeeping(stand);
  const receiver = await startReceiver();
  // The receiver listens on a port of this run's: the endpoint's address follows it.
  await sql.query('update webhook_endpoint set url = $2 where id = $1', [
    history.endpointId,
    `${receiver.origin}${HOOK_PATH}`,
  ]);
  const dataDir = path.join(run.workDir, `data-${plan.factor}`);
  const tls = await loadTlsMaterial({ dataDir });
  const probe = new https.Agent({ keepAlive: false, ca: tls.cert });
  say('starting the service');
  const service = await startService({
    databaseUrl: size.url,
    temporalAddress: stand.temporal.address,
    dataDir,
    env: { ...run.serviceEnv, WEBHOOK_CA_FILE: receiver.caFile },
    logFile: path.join(run.workDir, `service-${plan.factor}.log`),
    serves: answers200(probe, '/api/v1/distribution/channel', full),
    timeoutMs: run.startupTimeoutMs,
  });
  let timings: Timings = {};
  let quietMs: number | null = null;
  try {
    if (service.startupMs === null) say(`not serving after ${run.startupTimeoutMs / 1000} s: no case runs`);
    else {
      say(`serving after ${(service.startupMs / 1000).toFixed(1)} s; waiting until it is quiet`);
      quietMs = await untilQuiet(service.pid, run.quietTimeoutMs);
      if (quietMs === null) say(`still busy after ${run.quietTimeoutMs / 1000} s: the cases run beside its work`);
      say("the channel's reads");
      const client = scaleClient(service.origin, tls.cert);
      const context: CaseContext = { client, size, sql, deps: stand.deps, keys: { full, catalog: catalog.key } };
      timings = await channelReads(context);
      timings['GET /events, an empty poll at the end, only read:catalog'] = await emptyPolls(
        context,
        catalog.key,
        'catalogue',
      );
      say("the platform's writes");
      Object.assign(timings, await platformWrites(context, run.platformToken));
      await revokeKey(stand.deps, catalog.id);
      const ari = (await issue(stand, size, 'read:ari')).key;
      timings['GET /events, an empty poll at the end, only read:ari'] = await emptyPolls(context, ari, 'availability');
      client.close();
    }
  } finally {
    await service.stop();
    probe.destroy();
    await receiver.close();
  }
  say('one housekeeping pass');
  const retention = await retentionCase(stand, size, sql);
  return { size, startupMs: service.startupMs, quietMs, timings, retention, data: await dataFigures(sql, size) };
}
