import { beforeAll, describe, expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { csrfOf, hostRequest, openSession, SESSION_COOKIE } from '../support/host-pages.ts';
import { request } from '../support/https-client.ts';
import { createLogger } from '../../infra/logger.ts';

// Forms the host pages cannot read are the browser's (or a forger's) bad input: a 4xx page in the
// session's language and an info line, never a 500 with a stack at error level.

let api: TestApi;
const lines: string[] = [];

beforeAll(async () => {
  const bed = await apiTestBed({ log: createLogger('debug', {}, { write: (line: string) => void lines.push(line) }) });
  api = bed.api;
  await bed.host.organization('hf-org');
});

const levelsOf = (from: number) =>
  lines.slice(from).map((line) => JSON.parse(line) as { level: string; message: string; error?: string });

describe('a host form the service cannot read', () => {
  test("with more than 50 fields answers 413 in the session's language and logs one info line", async () => {
    const cookie = await openSession(api, 'hf-org', 'ro');
    const csrf = csrfOf(await hostRequest(api, 'GET', '/host/', { cookie }));
    const form: Record<string, string> = { csrf, locale: 'en' };
    for (let i = 0; i < 60; i++) form[`f${i}`] = 'x';
    const from = lines.length;
    const res = await hostRequest(api, 'POST', '/host/locale', { cookie, form });
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<html lang="ro">');
    expect(res.text).toContain('Formularul nu a putut fi citit');
    expect(res.text).not.toMatch(/at \w+ \(|Error:/);
    const logged = levelsOf(from).filter((line) => line.message !== 'request');
    expect(logged.map((line) => [line.level, line.message])).toEqual([['info', 'host form refused']]);
    // The language did not change: nothing of the form was applied.
    expect((await hostRequest(api, 'GET', '/host/', { cookie })).text).toContain('<html lang="ro">');
  });

  test("in an unknown charset answers 415 in the session's language and logs one info line", async () => {
    const cookie = await openSession(api, 'hf-org', 'en');
    const csrf = csrfOf(await hostRequest(api, 'GET', '/host/', { cookie }));
    const from = lines.length;
    const res = await request(api.url, api.ca, 'POST', '/host/locale', {
      headers: {
        cookie: `${SESSION_COOKIE}=${cookie}`,
        'content-type': 'application/x-www-form-urlencoded; charset=x-no-such-charset',
      },
      rawBody: new URLSearchParams({ csrf, locale: 'ro' }).toString(),
    });
    expect(res.status).toBe(415);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).toContain('The form could not be read');
    expect(res.text).not.toMatch(/at \w+ \(|Error:/);
    const logged = levelsOf(from).filter((line) => line.message !== 'request');
    expect(logged.map((line) => [line.level, line.message])).toEqual([['info', 'host form refused']]);
    expect((await hostRequest(api, 'GET', '/host/', { cookie })).text).toContain('<html lang="en">');
  });
});
