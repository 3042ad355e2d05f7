import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test } from 'vitest';
import { issueKey } from '../../admin/keys.ts';
import type { AdminContext } from '../../admin/context.ts';
import { generateApiKey } from '../../domain/api-keys.ts';
import { sandboxOperations } from '../../api/distribution/sandbox.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { productionDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

// The sandbox's own operations do not exist in production: no route (404 as an unknown path), no
// entry in the description, and nothing recorded of a production key's requests.

const BASE = '/api/v1/distribution';
let sandbox: TestApi;
let production: TestApi;
let ctx: AdminContext;
let orm: MikroORM;
let liveKey: string;

beforeAll(async () => {
  const bed = await apiTestBed();
  ({ ctx, orm } = bed);
  sandbox = bed.api;
  production = await startTestApi({
    orm,
    temporal: bed.temporal,
    clock: bed.clock,
    env: { SVC_ENVIRONMENT: 'production', INTERNAL_PORT: '0' },
  });
  const { channel } = await channelWithKey(ctx);
  liveKey = (
    await issueKey(
      { ...ctx, config: { ...ctx.config, environment: 'production' } },
      { channel: channel.name, scopes: 'read:catalog,read:ari,manage:webhooks' },
    )
  ).key;
});

const paths = sandboxOperations.map((op) => ({ method: op.method.toUpperCase(), path: op.path }));

describe('sandbox-only operations in production', () => {
  test.each(paths)('$method $path: 404 not_found, exactly as an unknown path', async ({ method, path }) => {
    const body = method === 'POST' ? { type: 'property.updated' } : undefined;
    const res = await production.call(method, `${BASE}${path}`, { key: liveKey, ...(body ? { body } : {}) });
    const unknown = await production.call(method, `${BASE}${path}-unknown`, {
      key: liveKey,
      ...(body ? { body } : {}),
    });
    expectProblem(res, 404, 'not_found');
    expectProblem(unknown, 404, 'not_found');
    const { request_id: _a, instance: _b, ...answer } = res.json as Record<string, unknown>;
    const { request_id: _c, instance: _d, ...unknownAnswer } = unknown.json as Record<string, unknown>;
    expect(answer).toEqual(unknownAnswer);
    expect(res.headers.allow).toBeUndefined();
  });

  test('absent from the production description, present in the sandbox one', async () => {
    const served = (await production.call('GET', `${BASE}/openapi.json`)).json as { paths: Record<string, unknown> };
    expect(Object.keys(served.paths).filter((path) => path.startsWith('/sandbox'))).toEqual([]);
    expect(Object.keys(productionDescription.paths).filter((path) => path.startsWith('/sandbox'))).toEqual([]);
    expect(JSON.stringify(productionDescription)).not.toContain('Sandbox');
    const sandboxServed = (await sandbox.call('GET', `${BASE}/openapi.json`)).json as {
      paths: Record<string, unknown>;
    };
    for (const { path } of paths) expect(sandboxServed.paths[path]).toBeDefined();
  });

  test('nothing a production key does is recorded in a request log', async () => {
    await production.call('GET', `${BASE}/channel`, { key: liveKey });
    await production.call('GET', `${BASE}/webhooks`, { key: liveKey });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [row] = await orm.em.fork().execute<{ n: string }[]>('select count(*) as n from sandbox_request');
    expect(Number(row!.n)).toBe(0);
  });

  test('a production key on the sandbox is refused before any sandbox operation runs', async () => {
    for (const { method, path } of paths) {
      const res = await sandbox.call(method, `${BASE}${path}`, {
        key: generateApiKey('production'),
        ...(method === 'POST' ? { body: { type: 'property.updated' } } : {}),
      });
      expectProblem(res, 401, 'api_key_wrong_environment');
    }
  });
});
