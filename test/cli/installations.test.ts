import { beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { runNode } from '../support/processes.ts';

let env: Record<string, string>;
let api: TestApi;

const admin = (...args: string[]) => runNode('scripts/admin.ts', args, env);

beforeAll(async () => {
  const bed = await apiTestBed({ clock: systemClock });
  api = bed.api;
  env = {
    DATABASE_URL: bed.databaseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: 'cli-test',
    LOG_LEVEL: 'silent',
    PLATFORM_TOKEN: TEST_PLATFORM_TOKEN,
  };
});

describe('npm run admin -- installation', () => {
  test('lists installations with their token by its last four characters, and revokes the token at once', async () => {
    const host = platform(api);
    await host.organization('cli-org-a');
    await host.organization('cli-org-b');
    const installed = (
      await host.call('POST', '/organizations/cli-org-a/installations', { app: 'door-locks', scopes: ['guests.read'] })
    ).json;
    await host.call('POST', '/organizations/cli-org-b/installations', { app: 'ledger', scopes: ['guests.read'] });
    const { token } = (await host.call('POST', `/installations/${installed.id}/token`)).json;

    const listed = await admin('installation', 'list', '--organization', 'cli-org-a');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain(token);
    expect(JSON.parse(listed.stdout)).toEqual({
      data: [
        {
          id: installed.id,
          organization: 'cli-org-a',
          app: 'door-locks',
          scopes: ['guests.read'],
          status: 'active',
          created_at: expect.any(String),
          token: { last4: token.slice(-4), scopes: ['guests.read'], created_at: expect.any(String) },
        },
      ],
    });
    expect(JSON.parse((await admin('installation', 'list')).stdout).data).toHaveLength(2);

    expect((await api.call('GET', '/api/v1/integration/guests', { key: token })).status).toBe(200);
    const revoked = await admin('installation', 'revoke-token', installed.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: installed.id, token: null, revoked_tokens: 1 });
    expect((await api.call('GET', '/api/v1/integration/guests', { key: token })).json.code).toBe('token_revoked');
    expect(
      JSON.parse((await admin('installation', 'list', '--organization', 'cli-org-a')).stdout).data[0].token,
    ).toBeNull();
  });

  test('an unknown installation is refused with exit code 2', async () => {
    const res = await admin('installation', 'revoke-token', '00000000-0000-4000-8000-000000000000');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('no installation');
  });
});
