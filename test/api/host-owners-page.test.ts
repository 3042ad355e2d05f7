import { beforeAll, describe, expect, test } from 'vitest';
import { formatInstant } from '../../api/host/formats.ts';
import type { HostLocale } from '../../domain/host-locale.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { hostRequest, openSession } from '../support/host-pages.ts';

// The owners page (/host/): each owner's connection on each channel, its time on the clock of
// the owner's properties with the zone named (as the listings write a property's times), and
// states said of the connection, so that they agree whatever the owner's name.

const BASE = '/api/v1/distribution';
let api: TestApi;
let channel: string;
/** `connected_at` of each connected owner, by reference. */
const connectedAt: Record<string, string> = {};

beforeAll(async () => {
  // The time now: the token's confirmation window runs on the workflow's (real) clock.
  const bed = await apiTestBed({
    clock: new TestClock(),
    taskQueue: 'api-host-owners-page',
    worker: true,
  });
  const { ctx, host } = bed;
  api = bed.api;
  const made = await channelWithKey(ctx, { scopes: ['read:catalog'] });
  channel = made.channel.name;
  await host.organization('ho-org');
  const owners = [
    ['ho-bran', 'Pensiunea Casa Bran', 'Europe/Bucharest'],
    ['ho-rossi', 'Giulia Rossi', 'Europe/Rome'],
    ['ho-ortega', 'Carmen Ortega', 'Europe/Bucharest'],
  ] as const;
  for (const [ref, name, timezone] of owners) {
    await host.owner(ref, { organization: 'ho-org', display_name: name });
    await host.location(`${ref}-loc`, { organization: 'ho-org', owner: ref, timezone });
    await host.property(`${ref}-prp`, { location: `${ref}-loc`, owner: ref });
    await host.distribute(`${ref}-prp`, [channel]);
  }
  // Pensiunea Casa Bran and Giulia Rossi connect (the channel confirms the token); Carmen Ortega does not.
  const seen = await api.call('GET', `${BASE}/owners?limit=10`, { key: made.key.key });
  for (const [ref, name] of owners.slice(0, 2)) {
    const minted = await api.call('POST', `/internal/v1/owners/${ref}/owner-connect`, {
      key: TEST_PLATFORM_TOKEN,
      body: { channel },
      headers: { accept: 'application/json' },
    });
    expect(minted.status, minted.text).toBe(200);
    const id = (seen.json.data as { id: string; display_name: string }[]).find((o) => o.display_name === name)!.id;
    const confirmed = await api.call('PUT', `${BASE}/owners/${id}/connection`, {
      key: made.key.key,
      body: { token: minted.json.token },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    connectedAt[ref] = confirmed.json.connected_at as string;
  }
}, 180_000);

/** The owners page's row of an owner's channel: its state cell's text and its `<time>`. */
async function rows(locale: string) {
  const cookie = await openSession(api, 'ho-org', locale);
  const page = await hostRequest(api, 'GET', '/host/', { cookie });
  expect(page.status, page.text).toBe(200);
  const sections = page.text.split('<section').slice(1);
  const row = (name: string) => {
    const section = sections.find((s) => s.includes(`>${name}</h2>`)) ?? '';
    return /<tr data-channel="[^"]+" data-state="[^"]+">[\s\S]*?<td>([\s\S]*?)<\/td>/.exec(section)?.[1] ?? '';
  };
  return { page: page.text, row };
}

describe('the owners page', () => {
  test("writes a connection's time on the clock of the owner's properties, the zone named, never in UTC", async () => {
    const { page, row } = await rows('en');
    const bran = connectedAt['ho-bran']!;
    const rossi = connectedAt['ho-rossi']!;
    expect(row('Pensiunea Casa Bran')).toContain(
      `<time datetime="${bran}">${formatInstant('en', bran, 'Europe/Bucharest')}</time>`,
    );
    expect(row('Giulia Rossi')).toContain(
      `<time datetime="${rossi}">${formatInstant('en', rossi, 'Europe/Rome')}</time>`,
    );
    expect(formatInstant('en', bran, 'Europe/Bucharest')).toMatch(/\(Europe\/Bucharest\)$/);
    expect(page).not.toContain('(UTC)');
  });

  test.each([
    ['ro', 'Conexiune activă din', 'Fără conexiune'],
    ['it', 'Collegamento attivo dal', 'Nessun collegamento'],
    ['es', 'Conexión activa desde el', 'Sin conexión'],
  ])('in %s, says each state of the connection whatever the name of its owner', async (locale, on, off) => {
    const { row } = await rows(locale);
    const bran = connectedAt['ho-bran']!;
    expect(row('Pensiunea Casa Bran')).toBe(
      `<span class="state-on">${on} <time datetime="${bran}">${formatInstant(locale as HostLocale, bran, 'Europe/Bucharest')}</time></span>`,
    );
    expect(row('Giulia Rossi')).toContain(`<span class="state-on">${on} <time`);
    expect(row('Carmen Ortega')).toBe(`<span class="state-off">${off}</span>`);
  });
});
