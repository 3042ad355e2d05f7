import { beforeAll, describe, expect, inject, test } from 'vitest';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import { hostLink, hostRequest, openSession } from '../support/host-pages.ts';
import { runNode } from '../support/processes.ts';

// `npm run admin -- host-session ...` as an operator runs it (a real process on the database the
// API under test serves), against sessions opened through the real sign-in links.
let env: Record<string, string>;
let api: TestApi;

const admin = (...args: string[]) => runNode('scripts/admin.ts', ['host-session', ...args], env);

beforeAll(async () => {
  const bed = await apiTestBed({ clock: systemClock });
  api = bed.api;
  env = {
    DATABASE_URL: bed.databaseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: 'cli-host-sessions',
    LOG_LEVEL: 'silent',
    PLATFORM_TOKEN: TEST_PLATFORM_TOKEN,
  };
  const { host } = bed;
  await host.organization('cli-hs-org');
  await host.organization('cli-hs-other');
});

describe('npm run admin -- host-session', () => {
  test('list shows the open sessions, never a secret; end signs the organization out and spends its unopened links, and no other', async () => {
    const cookie = await openSession(api, 'cli-hs-org', 'ro');
    const waiting = await hostLink(api, 'cli-hs-org');
    const other = await openSession(api, 'cli-hs-other');

    const listed = await admin('list', '--organization', 'cli-hs-org');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain(cookie.split('.')[0]!);
    const instant = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(JSON.parse(listed.stdout)).toEqual({
      organization: 'cli-hs-org',
      data: [
        {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          locale: 'ro',
          created_at: instant,
          last_seen_at: instant,
          idle_until: instant,
          expires_at: instant,
        },
      ],
    });

    const ended = await admin('end', '--organization', 'cli-hs-org');
    expect(ended.code, ended.stderr).toBe(0);
    expect(JSON.parse(ended.stdout)).toEqual({ organization: 'cli-hs-org', ended_sessions: 1, spent_links: 1 });
    expect((await hostRequest(api, 'GET', '/host/', { cookie })).status).toBe(401);
    const spent = await hostRequest(api, 'GET', waiting.path);
    expect(spent.status).toBe(410);
    expect(spent.text).toContain('This link was already used');
    expect(JSON.parse((await admin('list', '--organization', 'cli-hs-org')).stdout).data).toEqual([]);
    // Another organization's host is still signed in.
    expect((await hostRequest(api, 'GET', '/host/', { cookie: other })).status).toBe(200);
    // Nothing left to end: the counts say so.
    expect(JSON.parse((await admin('end', '--organization', 'cli-hs-org')).stdout)).toMatchObject({
      ended_sessions: 0,
      spent_links: 0,
    });
  });

  test('an unknown organization or a missing --organization is refused with exit code 2', async () => {
    const unknown = await admin('end', '--organization', 'cli-hs-nobody');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no organization with reference "cli-hs-nobody"');
    const missing = await admin('list');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--organization');
  });
});
