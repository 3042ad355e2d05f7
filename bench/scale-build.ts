/**
 * A size's database for `bench:scale`: `bench_scale_<factor>` on the PostgreSQL at DATABASE_URL,
 * kept between runs with a marker row (the bench's data version, the last migration, when it was
 * built and what the history names), and built again when the marker differs or is older than
 * SCALE_MAX_AGE_HOURS (default 24: the history is laid out before its build, and reads are made
 * at the time of the run).
 *
 * A build: the schema from the migrations; the channel; the service, spawned as `npm start` runs
 * it, writes the template through its interfaces (bench/scale-template.ts) after the log's
 * history positions were set aside; then in SQL the property's copies (bench/property-clones.ts),
 * the history (bench/scale-history.ts) and the views at its end; vacuum and analyze.
 */
import https from 'node:https';
import path from 'node:path';
import pg from 'pg';
import { createChannel } from '../admin/channels.ts';
import { issueKey } from '../admin/keys.ts';
import { migrationsList } from '../db/migrations/index.ts';
import { loadTlsMaterial } from '../infra/tls.ts';
import { benchClient } from './platform-client.ts';
import { cloneProperty } from './property-clones.ts';
import { startReceiver } from './push-support.ts';
import { type BenchStand, standUp } from './service-stand.ts';
import { loadDeliveries, loadEvents, numberProperties, settleViews, type HistoryContext } from './scale-history.ts';
import { BLOCKS, blockLength, DAY_MS, historyEnd, scalePlan, type ScalePlan } from './scale-plan.ts';
import { answers200, startService } from './scale-service.ts';
import { TEMPLATE_REF, writeTemplate } from './scale-template.ts';
import { pauseHousekeeping, type ScaleRun } from './scale-run.ts';

/** Bumped whenever what a build loads changes: every cached size is then built again. */
export const SCALE_DATA_VERSION = 3;
const MARKER = 'bench_scale_marker';
const CHANNEL = 'scale-channel';
const MAX_AGE_HOURS = Number(process.env.SCALE_MAX_AGE_HOURS ?? 24);
/** Copies with nights of their own (copies 1 to this). */
const NIGHTS_COPIES = 99;
/** How long the template's deliveries may take (the first is retried after a minute). */
const DELIVERIES_WITHIN_MS = 300_000;

export interface SizeDatabase {
  factor: number;
  name: string;
  url: string;
  builtAt: Date;
  plan: ScalePlan;
  context: HistoryContext;
  /** Seconds this run spent building it; null when it was found built. */
  buildSeconds: number | null;
}

const dataVersion = () => `${SCALE_DATA_VERSION}/${migrationsList.at(-1)!.name}`;

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function onServer<T>(serverUrl: string, work: (sql: pg.Client) => Promise<T>): Promise<T> {
  const sql = new pg.Client({ connectionString: serverUrl });
  await sql.connect();
  try {
    return await work(sql);
  } finally {
    await sql.end();
  }
}

/** The marker of a built size, when it is there, of this data version and young enough. */
async function builtSize(serverUrl: string, factor: number): Promise<SizeDatabase | null> {
  const name = `bench_scale_${factor}`;
  const exists = await onServer(serverUrl, (sql) => sql.query('select 1 from pg_database where datname = $1', [name]));
  if (exists.rowCount === 0) return null;
  const url = databaseUrl(serverUrl, name);
  return onServer(url, async (sql) => {
    const table = await sql.query<{ found: string | null }>('select to_regclass($1) as found', [MARKER]);
    if (!table.rows[0]!.found) return null;
    const { rows } = await sql.query<{ version: string; built_at: Date; context: HistoryContext }>(
      `select version, built_at, context from ${MARKER}`,
    );
    const marker = rows[0];
    if (!marker || marker.version !== dataVersion()) return null;
    if (Date.now() - marker.built_at.getTime() > MAX_AGE_HOURS * 3_600_000) return null;
    const builtAt = marker.built_at;
    return {
      factor,
      name,
      url,
      builtAt,
      plan: scalePlan(factor, builtAt),
      context: marker.context,
      buildSeconds: null,
    };
  });
}

/** The size's database: the one built before when its marker matches, else a new build. */
export async function sizeDatabase(run: ScaleRun, temporalAddress: string, factor: number): Promise<SizeDatabase> {
  const found = await builtSize(run.serverUrl, factor);
  if (found) {
    run.say(`${factor}x: bench_scale_${factor} built ${found.builtAt.toISOString()}, kept`);
    return found;
  }
  return buildSize(run, temporalAddress, factor);
}

async function buildSize(run: ScaleRun, temporalAddress: string, factor: number): Promise<SizeDatabase> {
  const started = performance.now();
  const name = `bench_scale_${factor}`;
  const url = databaseUrl(run.serverUrl, name);
  run.say(`${factor}x: building ${name}`);
  await onServer(run.serverUrl, async (sql) => {
    await sql.query(`drop database if exists ${name} with (force)`);
    await sql.query(`create database ${name}`);
  });
  const builtAt = new Date();
  const plan = scalePlan(factor, builtAt);
  const stand = await standUp({ databaseUrl: url, temporalAddress, env: run.serviceEnv });
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  try {
    await sql.query('set synchronous_commit = off');
    const context = await serviceWrites(run, stand, sql, plan, url);
    run.say(`${factor}x: the service wrote the template (${seconds(started)} s); copying it`);
    // Copies past the first hundred have no nights: a year of a property's nights is some 450 kB
    // (45 GB at 100k properties), and the changes page, the one case that reads nights, lists the
    // properties of the last roll's first transactions, copies 1-49.
    const template = { id: context.templateId, channelId: context.channelId };
    await cloneProperty(stand.orm.em.fork(), template, 1, NIGHTS_COPIES, { vacuum: false });
    await cloneProperty(stand.orm.em.fork(), template, NIGHTS_COPIES + 1, plan.properties - 1, {
      nights: false,
      vacuum: false,
    });
    await numberProperties(sql, plan, context);
    for (let block = 0; block < BLOCKS; block += 1) {
      await loadEvents(sql, plan, context, block, block);
      if (block > 0) await loadDeliveries(sql, plan, context, block, block);
      if (block % 6 === 5) run.say(`${factor}x: ${block + 1} of ${BLOCKS} days loaded (${seconds(started)} s)`);
    }
    // The planner learns the loaded tables' sizes before the views are settled from them.
    await sql.query('analyze event, webhook_delivery, webhook_attempt, channel_resource, ari_property');
    await settleViews(sql, plan, context);
    // The endpoint was registered (and the channel made) before the history's first delivery.
    await sql.query(
      'update webhook_endpoint set created_at = $2, updated_at = $2, resume_after_position = $3 where id = $1',
      [context.endpointId, new Date(plan.startMs + DAY_MS - 60_000), blockLength(plan)],
    );
    await sql.query('update channel set created_at = $2 where id = $1', [
      context.channelId,
      new Date(plan.startMs - DAY_MS),
    ]);
    run.say(`${factor}x: vacuum and analyze (${seconds(started)} s)`);
    await sql.query('vacuum (analyze)');
    const buildSeconds = seconds(started);
    await sql.query(
      `create table ${MARKER} (version text not null, built_at timestamptz not null, context json not null)`,
    );
    await sql.query(`insert into ${MARKER} values ($1, $2, $3)`, [dataVersion(), builtAt, JSON.stringify(context)]);
    run.say(`${factor}x: built in ${buildSeconds} s`);
    return { factor, name, url, builtAt, plan, context, buildSeconds };
  } finally {
    await sql.end();
    await stand.close();
  }
}

const seconds = (since: number) => Math.round((performance.now() - since) / 100) / 10;

/**
 * The channel, the log's history positions set aside (the service's writes follow them), and the
 * template written by the service, whose deliveries the receiver has taken: what the copies copy.
 */
async function serviceWrites(run: ScaleRun, stand: BenchStand, sql: pg.Client, plan: ScalePlan, url: string) {
  const channel = await createChannel(stand.deps, { name: CHANNEL, rateLimit: 1_000_000 });
  const { key } = await issueKey(stand.deps, { channel: CHANNEL, scopes: 'read:catalog,manage:webhooks' });
  const end = historyEnd(plan);
  await sql.query(
    `insert into channel_log (channel_id, last_stamp, last_position) values ($1, $2, $3)
     on conflict (channel_id) do update set last_stamp = excluded.last_stamp, last_position = excluded.last_position`,
    [channel.id, new Date(end.stampMs), end.position],
  );
  await pauseHousekeeping(stand);
  const receiver = await startReceiver();
  const dataDir = path.join(run.workDir, `data-${plan.factor}`);
  const tls = await loadTlsMaterial({ dataDir });
  const agent = new https.Agent({ keepAlive: true, ca: tls.cert, maxSockets: 1 });
  const service = await startService({
    databaseUrl: url,
    temporalAddress: stand.temporal.address,
    dataDir,
    env: { ...run.serviceEnv, WEBHOOK_CA_FILE: receiver.caFile },
    logFile: path.join(run.workDir, `service-${plan.factor}.log`),
    serves: answers200(agent, '/api/v1/distribution/channel', key),
    timeoutMs: run.startupTimeoutMs,
  });
  try {
    if (service.startupMs === null) throw new Error(`the service did not serve within ${run.startupTimeoutMs} ms`);
    const client = benchClient(service.origin, agent, run.platformToken);
    const { endpointId } = await writeTemplate(client, receiver, CHANNEL, key);
    await deliveriesDone(sql);
    const [template] = (await sql.query<{ id: string }>('select id from property where ref = $1', [TEMPLATE_REF])).rows;
    const attempt = async (where: string) => {
      const { rows } = await sql.query<{
        status_code: number | null;
        error: string | null;
        response_excerpt: string | null;
      }>(`select status_code, error, response_excerpt from webhook_attempt where ${where} limit 1`);
      if (!rows[0]) throw new Error(`the service recorded no attempt ${where}`);
      return { statusCode: rows[0].status_code, error: rows[0].error, excerpt: rows[0].response_excerpt };
    };
    return {
      channelId: channel.id,
      channelName: CHANNEL,
      endpointId,
      templateId: template!.id,
      attempts: {
        delivered: await attempt('status_code between 200 and 299'),
        failed: await attempt('status_code = 503'),
      },
    };
  } finally {
    await service.stop();
    agent.destroy();
    await receiver.close();
  }
}

/** Waits until every delivery of the template's writes was delivered, the retried one too. */
async function deliveriesDone(sql: pg.Client): Promise<void> {
  const deadline = Date.now() + DELIVERIES_WITHIN_MS;
  for (;;) {
    const { rows } = await sql.query<{ all: string; delivered: string; failed: string }>(
      `select count(*) as all, count(*) filter (where state = 'delivered') as delivered,
              (select count(*) from webhook_attempt where status_code = 503) as failed from webhook_delivery`,
    );
    const counts = rows[0]!;
    if (Number(counts.all) >= 2 && counts.all === counts.delivered && Number(counts.failed) >= 1) return;
    if (Date.now() > deadline)
      throw new Error(
        `the template's deliveries: ${counts.delivered} of ${counts.all} delivered after ${DELIVERIES_WITHIN_MS} ms`,
      );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
