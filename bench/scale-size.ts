/**
 * One size of `bench:scale` as a session: its database (built or kept), the night's roll
 * appended, the service spawned on a fresh Temporal dev server, timed to its first served
 * request and left to finish what its start set going; then, once every size's cases ran, the
 * service stopped and the retention pass.
 */
import https from 'node:https';
import path from 'node:path';
import pg from 'pg';
import { issueKey, revokeKey } from '../admin/keys.ts';
import type { RunningTemporal } from '../infra/embedded-temporal.ts';
import { loadTlsMaterial } from '../infra/tls.ts';
import { startReceiver, type Receiver } from './push-support.ts';
import { sizeDatabase, type SizeDatabase } from './scale-build.ts';
import type { CaseContext } from './scale-cases.ts';
import { scaleClient } from './scale-http.ts';
import { appendRoll, numberProperties } from './scale-history.ts';
import { retentionCase, type RetentionFigures } from './scale-retention.ts';
import { pauseHousekeeping, startTemporal, stopCatchUp, type CatchUpLeft, type ScaleRun } from './scale-run.ts';
import { answers200, startService, untilQuiet, type RunningService } from './scale-service.ts';
import { HOOK_PATH } from './scale-template.ts';
import { standUp, type BenchStand } from './service-stand.ts';

export interface SizeSession {
  size: SizeDatabase;
  stand: BenchStand;
  sql: pg.Client;
  startupMs: number | null;
  /** From the first served request until the service was quiet; null when it never was in time. */
  quietMs: number | null;
  /** What the certificate-expiry catch-up had left when the bench stopped it; null without a start. */
  catchUp: CatchUpLeft | null;
  /** What the cases need; absent when the service did not serve. */
  cases: CaseContext | null;
  /** The key of only `read:catalog`, revoked before one of only `read:ari` is issued. */
  catalogKeyId: string;
  /** Stops the service and the receiver (again: nothing). */
  stopService: () => Promise<void>;
  /** Then the database connections and the dev server. */
  close: () => Promise<void>;
}

/** A key of the channel's with `scopes` (a channel holds two live keys at most). */
export const issue = (session: Pick<SizeSession, 'stand' | 'size'>, scopes: string) =>
  issueKey(session.stand.deps, { channel: session.size.context.channelName, scopes });

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

/** The size ready for its cases, its service serving (or not, within the run's timeout). */
export async function openSize(run: ScaleRun, factor: number): Promise<SizeSession> {
  const temporal = await startTemporal();
  const stops: (() => Promise<void>)[] = [() => temporal.stop()];
  const close = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    const size = await sizeDatabase(run, temporal.address, factor);
    const stand = await standUp({ databaseUrl: size.url, temporalAddress: temporal.address, env: run.serviceEnv });
    stops.push(stand.close);
    const sql = new pg.Client({ connectionString: size.url });
    await sql.connect();
    stops.push(() => sql.end());
    return await start(run, size, stand, sql, temporal, close);
  } catch (error) {
    await close();
    throw error;
  }
}

async function start(
  run: ScaleRun,
  size: SizeDatabase,
  stand: BenchStand,
  sql: pg.Client,
  temporal: RunningTemporal,
  close: () => Promise<void>,
): Promise<SizeSession> {
  const { plan, context: history } = size;
  const say = (line: string) => run.say(`${plan.factor}x: ${line}`);
  await numberProperties(sql, plan, history);
  await appendRoll(sql, plan, history, new Date());
  await sql.query('analyze event');
  await revokeAll(stand, sql, history.channelId);
  const full = (await issue({ stand, size }, 'read:catalog,read:ari,manage:webhooks')).key;
  const catalog = await issue({ stand, size }, 'read:catalog');
  await pauseHousekeeping(stand);
  const receiver: Receiver = await startReceiver();
  // The receiver listens on a port of this run's: the endpoint's address follows it.
  await sql.query('update webhook_endpoint set url = $2 where id = $1', [
    history.endpointId,
    `${receiver.origin}${HOOK_PATH}`,
  ]);
  const dataDir = path.join(run.workDir, `data-${plan.factor}`);
  const tls = await loadTlsMaterial({ dataDir });
  const probe = new https.Agent({ keepAlive: false, ca: tls.cert });
  say('starting the service');
  let service: RunningService;
  const startedAt = new Date();
  try {
    service = await startService({
      databaseUrl: size.url,
      temporalAddress: temporal.address,
      dataDir,
      env: { ...run.serviceEnv, WEBHOOK_CA_FILE: receiver.caFile },
      logFile: path.join(run.workDir, `service-${plan.factor}.log`),
      serves: answers200(probe, '/api/v1/distribution/channel', full),
      timeoutMs: run.startupTimeoutMs,
    });
  } catch (error) {
    await receiver.close();
    throw error;
  } finally {
    probe.destroy();
  }
  const client = scaleClient(service.origin, tls.cert);
  let stopped = false;
  const stopService = async () => {
    if (stopped) return;
    stopped = true;
    client.close();
    await service.stop();
    await receiver.close();
  };
  let quietMs: number | null = null;
  let catchUp: CatchUpLeft | null = null;
  if (service.startupMs === null) say(`not serving after ${run.startupTimeoutMs / 1000} s: no case runs`);
  else {
    say(`serving after ${(service.startupMs / 1000).toFixed(1)} s`);
    catchUp = await stopCatchUp(stand, sql, startedAt);
    say(
      `certificate-expiry catch-up stopped with ${catchUp.remaining} of ${catchUp.total} properties left; waiting until it is quiet`,
    );
    quietMs = await untilQuiet(service.pid, run.quietTimeoutMs);
    if (quietMs === null) say(`still busy after ${run.quietTimeoutMs / 1000} s: the cases run beside its work`);
  }
  const cases =
    service.startupMs === null ? null : { client, size, sql, deps: stand.deps, keys: { full, catalog: catalog.key } };
  return {
    size,
    stand,
    sql,
    startupMs: service.startupMs,
    quietMs,
    catchUp,
    cases,
    catalogKeyId: catalog.id,
    stopService,
    close: async () => {
      await stopService();
      await close();
    },
  };
}

/** The size's rows, database size and build time, as the run leaves them. */
export async function dataFigures(session: SizeSession): Promise<Record<string, number | string>> {
  const { sql, size } = session;
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

/** The service stopped, one housekeeping pass (bench/scale-retention.ts). */
export async function retentionPass(session: SizeSession): Promise<RetentionFigures> {
  await session.stopService();
  return retentionCase(session.stand, session.size, session.sql);
}
