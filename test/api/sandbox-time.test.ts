import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, test } from 'vitest';
import { issueKey } from '../../admin/keys.ts';
import type { AdminContext } from '../../admin/context.ts';
import { sandboxTimeOperations } from '../../api/distribution/sandbox-time.ts';
import { ProblemError } from '../../domain/problems.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { attemptWaitingNow, endOwnerConnectWindow, setFastRetries } from '../../services/sandbox-time.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { startTestApi, TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription, productionDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

// Ending an owner-connect token's confirmation window now, through the real API over TLS and its
// owner-connect workflow; and every sandbox time operation absent from production.

const BASE = '/api/v1/distribution';
let api: TestApi;
let production: TestApi;
let ctx: AdminContext;
let orm: MikroORM;
let temporal: Client;
const a = { name: '', key: '' };
const b = { name: '', key: '' };
let liveKey: string;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: new TestClock(), taskQueue: 'api-sandbox-time', worker: true });
  ({ api, ctx, orm, temporal } = bed);
  production = await startTestApi({
    orm,
    temporal,
    clock: bed.clock,
    env: { SVC_ENVIRONMENT: 'production', INTERNAL_PORT: '0' },
  });
  for (const channel of [a, b]) {
    const made = await channelWithKey(ctx, { scopes: ['read:catalog', 'manage:webhooks'] });
    channel.name = made.channel.name;
    channel.key = made.key.key;
  }
  liveKey = (
    await issueKey(
      { ...ctx, config: { ...ctx.config, environment: 'production' } },
      { channel: a.name, scopes: 'read:catalog,manage:webhooks' },
    )
  ).key;
  const host = platform(api);
  await host.organization('st-org');
  await host.owner('st-own', { organization: 'st-org', display_name: 'Time Owner' });
  await host.location('st-loc', { organization: 'st-org', owner: 'st-own' });
  await host.property('st-prp', { location: 'st-loc', owner: 'st-own' });
  await host.distribute('st-prp', [a.name, b.name]);
}, 120_000);

async function mintToken(channel: string): Promise<string> {
  const res = await api.call('POST', '/internal/v1/owners/st-own/owner-connect', {
    key: TEST_PLATFORM_TOKEN,
    body: { channel },
    headers: { accept: 'application/json' },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.token as string;
}

const expire = async (key: string, token: string) => {
  const res = await api.call('POST', `${BASE}/sandbox/owner-connect/expire`, { key, body: { token } });
  if (res.status < 400) expectMatchesDescription('POST', `${BASE}/sandbox/owner-connect/expire`, res);
  return res;
};
const confirm = (key: string, token: string) =>
  api.call('PUT', `${BASE}/owners/${decodeJwt(token).sub!}/connection`, { key, body: { token } });

describe('POST /sandbox/owner-connect/expire', () => {
  test('ends the window now: a later confirmation is refused owner_connect_token_expired, its workflow ends expired, and asking again answers the same', async () => {
    const token = await mintToken(a.name);
    const { jti, sub } = decodeJwt(token);
    const res = await expire(a.key, token);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ token_id: jti, owner_id: sub, expired_at: expect.any(String) });
    expectProblem(await confirm(a.key, token), 410, 'owner_connect_token_expired');
    const handle = temporal.workflow.getHandle(workflowIds.ownerConnect(jti!));
    expect(await handle.result()).toBe('expired');
    expect((await expire(a.key, token)).json).toEqual(res.json);
  });

  test('a token of another channel is refused as its confirmation would be, and stays confirmable by its own', async () => {
    const token = await mintToken(b.name);
    expectProblem(await expire(a.key, token), 400, 'invalid_owner_connect_token');
    const confirmed = await confirm(b.key, token);
    expect(confirmed.status, confirmed.text).toBe(200);
    // A confirmed token has no window left to end.
    expectProblem(await expire(b.key, token), 409, 'owner_connect_token_used');
  });
});

const paths = sandboxTimeOperations.map((op) => ({ method: op.method.toUpperCase(), path: op.path }));

describe('the sandbox time operations in production', () => {
  test.each(paths)('$method $path: 404 not_found, as an unknown path', async ({ method, path }) => {
    const concrete = path.replace('{webhook_id}', 'whk_x');
    const body = method === 'GET' ? {} : { body: { enabled: true } };
    const res = await production.call(method, `${BASE}${concrete}`, { key: liveKey, ...body });
    expectProblem(res, 404, 'not_found');
    expect(res.headers.allow).toBeUndefined();
  });

  test('absent from the production description, present in the sandbox one', async () => {
    const served = (await production.call('GET', `${BASE}/openapi.json`)).json as { paths: Record<string, unknown> };
    const sandbox = (await api.call('GET', `${BASE}/openapi.json`)).json as { paths: Record<string, unknown> };
    for (const { path } of paths) {
      expect(served.paths[path]).toBeUndefined();
      expect(productionDescription.paths[path]).toBeUndefined();
      expect(sandbox.paths[path]).toBeDefined();
    }
  });

  test('the services refuse outside a sandbox, whoever calls them', async () => {
    const deps = { config: { environment: 'production' } } as unknown as ServiceDeps;
    const channel = { channelId: 'x', channelName: 'x' };
    for (const run of [
      () => attemptWaitingNow(deps, channel),
      () => setFastRetries(deps, channel, 'whk_x', true),
      () => endOwnerConnectWindow(deps, channel, 'a.b.c'),
    ]) {
      const refused = await run().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ProblemError);
      expect((refused as ProblemError).code).toBe('not_found');
    }
  });
});
