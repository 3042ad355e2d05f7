import type { MikroORM } from '@mikro-orm/postgresql';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { ApiKeySchema, ChannelSchema } from '../../db/entities/index.ts';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { uniqueChannelName } from '../support/fixtures.ts';
import { runNode } from '../support/processes.ts';

let env: Record<string, string>;
let orm: MikroORM;
let api: TestApi;

const admin = (...args: string[]) => runNode('scripts/admin.ts', args, env);

beforeAll(async () => {
  const bed = await apiTestBed({ clock: systemClock });
  ({ api, orm } = bed);
  env = {
    DATABASE_URL: bed.databaseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: 'cli-test',
    LOG_LEVEL: 'silent',
  };
});

async function counts() {
  const em = orm.em.fork();
  const channels = await em.find(ChannelSchema, {}, { orderBy: { name: 'asc' } });
  return {
    channels: channels.map((c) => [c.name, c.status, c.rateLimitPerMinute, c.redirectUrl, c.technicalContactEmail]),
    keys: await em.count(ApiKeySchema, {}),
  };
}

describe('npm run admin', () => {
  test('creates a channel and issues a key that GET /channel accepts; the key is shown once, only its hash is stored', async () => {
    const name = uniqueChannelName('cli');
    const created = await admin(
      'channel',
      'create',
      name,
      '--redirect-url',
      'https://partner.example/connect',
      '--rate-limit',
      '900',
    );
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      name,
      status: 'active',
      rate_limit: { per_minute: 900 },
      owner_connect: { redirect_url: 'https://partner.example/connect' },
    });

    const issued = await admin(
      'key',
      'issue',
      name,
      '--scopes',
      'read:catalog,read:ari',
      '--expires-at',
      '2099-01-01T00:00:00Z',
    );
    expect(issued.code, issued.stderr).toBe(0);
    const doc = JSON.parse(issued.stdout);
    expect(Object.keys(doc).sort()).toEqual(['expires_at', 'id', 'key', 'last4']);
    expect(doc.key).toMatch(/^svc_test_[0-9A-Za-z]{54}$/);
    expect(doc.last4).toBe(doc.key.slice(-4));
    expect(doc.expires_at).toBe('2099-01-01T00:00:00Z');

    const stored = await orm.em.fork().findOneOrFail(ApiKeySchema, doc.id);
    expect(JSON.stringify(stored)).not.toContain(doc.key);
    const res = await api.call('GET', '/api/v1/distribution/channel', { key: doc.key });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      channel: name,
      key: { last4: doc.last4, expires_at: '2099-01-01T00:00:00Z' },
      rate_limit: { per_minute: 900 },
    });

    const revoked = await admin('key', 'revoke', doc.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: doc.id, state: 'revoked' });
    expect((await api.call('GET', '/api/v1/distribution/channel', { key: doc.key })).json.code).toBe('api_key_revoked');
  });

  test('channel update changes the redirect URL, technical contact and rate limit; GET /channel shows them', async () => {
    const name = uniqueChannelName('cli');
    expect(
      (
        await admin(
          'channel',
          'create',
          name,
          '--redirect-url',
          'https://partner.example/connect',
          '--contact',
          'old@partner.example',
        )
      ).code,
    ).toBe(0);
    const issued = JSON.parse((await admin('key', 'issue', name, '--scopes', 'read:catalog')).stdout);
    const updated = await admin(
      'channel',
      'update',
      name,
      '--redirect-url',
      'https://partner.example/v2/connect',
      '--rate-limit',
      '1200',
      '--contact',
      'tech@partner.example',
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      name,
      rate_limit: { per_minute: 1200 },
      owner_connect: { redirect_url: 'https://partner.example/v2/connect' },
      technical_contact: 'tech@partner.example',
    });
    const shown = await api.call('GET', '/api/v1/distribution/channel', { key: issued.key });
    expect(shown.json).toMatchObject({
      rate_limit: { per_minute: 1200 },
      owner_connect: { redirect_url: 'https://partner.example/v2/connect' },
      technical_contact: { email: 'tech@partner.example' },
    });
    expect(shown.headers['ratelimit-limit']).toBe('1200');

    // One setting changes alone; `none` clears an optional one.
    const cleared = await admin('channel', 'update', name, '--redirect-url', 'none');
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout)).toMatchObject({
      rate_limit: { per_minute: 1200 },
      owner_connect: { redirect_url: null },
      technical_contact: 'tech@partner.example',
    });
    expect((await api.call('GET', '/api/v1/distribution/channel', { key: issued.key })).json).toMatchObject({
      owner_connect: { redirect_url: null },
      technical_contact: { email: 'tech@partner.example' },
    });
  });

  test('suspends a channel', async () => {
    const name = uniqueChannelName('cli');
    expect((await admin('channel', 'create', name)).code).toBe(0);
    const suspended = await admin('channel', 'suspend', name);
    expect(JSON.parse(suspended.stdout)).toMatchObject({ name, status: 'suspended' });
  });

  test('a third live key is refused', async () => {
    const name = uniqueChannelName('cli');
    expect((await admin('channel', 'create', name)).code).toBe(0);
    expect((await admin('key', 'issue', name, '--scopes', 'read:catalog')).code).toBe(0);
    expect((await admin('key', 'issue', name, '--scopes', 'read:catalog')).code).toBe(0);
    const before = await counts();
    const third = await admin('key', 'issue', name, '--scopes', 'read:catalog');
    expect(third.code).toBe(2);
    expect(third.stderr).toMatch(/already holds 2 keys/);
    expect(await counts()).toEqual(before);
  });

  test.each([
    [
      'an unknown channel',
      ['key', 'issue', 'no-such-channel', '--scopes', 'read:catalog'],
      /no channel named "no-such-channel"/,
    ],
    [
      'an unknown scope',
      ['key', 'issue', '$CHANNEL', '--scopes', 'read:everything'],
      /unknown scope "read:everything"/,
    ],
    ['a reserved scope', ['key', 'issue', '$CHANNEL', '--scopes', 'write:bookings'], /reserved/],
    [
      'a malformed instant',
      ['key', 'issue', '$CHANNEL', '--scopes', 'read:catalog', '--expires-at', 'next tuesday'],
      /RFC 3339/,
    ],
    [
      'an instant in the past',
      ['key', 'issue', '$CHANNEL', '--scopes', 'read:catalog', '--expires-at', '2001-01-01T00:00:00Z'],
      /in the past/,
    ],
    ['a rate limit under 600', ['channel', 'create', 'slow-channel', '--rate-limit', '100'], /at least 600/],
    ['a bad channel name', ['channel', 'create', 'Bad Name!'], /channel name/],
    ['an existing channel name', ['channel', 'create', '$CHANNEL'], /exists/],
    ['an unknown option', ['channel', 'create', 'x-channel', '--colour', 'red'], /Unknown option/],
    ['an update naming no setting', ['channel', 'update', '$CHANNEL'], /name at least one/],
    ['an update to a rate limit under 600', ['channel', 'update', '$CHANNEL', '--rate-limit', '599'], /at least 600/],
    [
      'an update to a plain-HTTP redirect URL',
      ['channel', 'update', '$CHANNEL', '--redirect-url', 'http://partner.example/connect'],
      /redirect/,
    ],
    [
      'an update of an unknown channel',
      ['channel', 'update', 'no-such-channel', '--rate-limit', '700'],
      /no channel named "no-such-channel"/,
    ],
    ['an unknown key id', ['key', 'revoke', 'key_nothing'], /no key with id/],
    ['an unknown command', ['channel', 'explode'], /usage/],
  ])('refuses %s with a clear message, exit code 2, and changes nothing', async (_name, args, message) => {
    const channel = uniqueChannelName('cli');
    expect((await admin('channel', 'create', channel)).code).toBe(0);
    const before = await counts();
    const result = await admin(...args.map((a) => (a === '$CHANNEL' ? channel : a)));
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(await counts()).toEqual(before);
  });
});

describe('npm run admin from a shell without the service', () => {
  test('names DATA_DIR, where it looked, its default and how to set it, when no running service is found there', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-admin-elsewhere-'));
    const result = await runNode('scripts/admin.ts', ['channel', 'list'], {
      DATA_DIR: dataDir,
      DATABASE_URL: undefined,
      TEMPORAL_ADDRESS: undefined,
      LOG_LEVEL: 'silent',
    });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`no running \`npm start\` found in DATA_DIR ${dataDir}`);
    expect(lines[0]).toContain('default .data in the project directory');
    expect(lines[0]).toContain('DATA_DIR=/path/to/data npm run admin -- ');
    expect(lines[0]).toContain('DATABASE_URL');
  });
});
