import { beforeAll, expect, test } from 'vitest';
import { updateChannel } from '../../admin/channels.ts';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { systemClock } from '../../domain/clock.ts';
import { startChannelApp, type ChannelApp } from '../../examples/channel-app/server.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import { onCleanup } from '../support/cleanup.ts';
import { fetchTrusting } from '../support/channel-kit.ts';

/**
 * The reference app's owner-connect pages in the host's language: the token's `locale` (the
 * host's interface language) picks English, Romanian, Italian or Spanish, the browser's
 * `Accept-Language` when the token names none of them; the confirmation writes `connected_at`
 * for people, in that language, with its zone named.
 */

const ORIGIN = 'https://distribution.test';
let api: TestApi;
let app: ChannelApp;
let channel: string;
const appLog: string[] = [];

const MONTHS = {
  en: 'January February March April May June July August September October November December',
  ro: 'ianuarie februarie martie aprilie mai iunie iulie august septembrie octombrie noiembrie decembrie',
  it: 'gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre',
  es: 'enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre',
};

/** `connected_at`'s day, month name, year, hour and minute in UTC. */
function parts(instant: string, language: keyof typeof MONTHS) {
  const at = new Date(instant);
  const pad = (n: number) => String(n).padStart(2, '0');
  return {
    d: at.getUTCDate(),
    month: MONTHS[language].split(' ')[at.getUTCMonth()]!,
    y: at.getUTCFullYear(),
    time: `${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}`,
  };
}

const ACCOUNT = 'demo-host@channel.example';
const CASES = [
  {
    owner: 'Jane Smith',
    token: 'en-GB',
    lang: 'en',
    title: 'Connect Jane Smith?',
    question: () => `Link the listings of Jane Smith to your ${channel} account ${ACCOUNT}?`,
    button: 'Confirm',
    connected: 'Connected',
    sentence: (at: string) => {
      const { d, month, y, time } = parts(at, 'en');
      return `The listings of Jane Smith have been connected to your ${channel} account since ${d} ${month} ${y} at ${time} UTC.`;
    },
  },
  {
    owner: 'Ana Popescu',
    token: 'ro-RO',
    lang: 'ro',
    title: 'Conectați Ana Popescu?',
    question: () => `Legați anunțurile de la Ana Popescu de contul dumneavoastră ${channel} ${ACCOUNT}?`,
    button: 'Confirmați',
    connected: 'Conectare reușită',
    sentence: (at: string) => {
      const { d, month, y, time } = parts(at, 'ro');
      return `Anunțurile de la Ana Popescu sunt conectate la contul dumneavoastră ${channel} din ${d} ${month} ${y} la ${time} UTC.`;
    },
  },
  {
    owner: 'Giulia Rossi',
    token: 'it',
    lang: 'it',
    title: 'Collegare Giulia Rossi?',
    question: () => `Collegare gli annunci di Giulia Rossi al Suo account ${channel} ${ACCOUNT}?`,
    button: 'Conferma',
    connected: 'Collegamento riuscito',
    sentence: (at: string) => {
      const { d, month, y, time } = parts(at, 'it');
      return `Gli annunci di Giulia Rossi sono collegati al Suo account ${channel} dal ${d} ${month} ${y} alle ore ${time} UTC.`;
    },
  },
  {
    owner: 'Carmen Ortega',
    token: 'es-ES',
    lang: 'es',
    title: '¿Conectar Carmen Ortega?',
    question: () => `¿Vincular los anuncios de Carmen Ortega con su cuenta de ${channel} ${ACCOUNT}?`,
    button: 'Confirmar',
    connected: 'Conexión realizada',
    sentence: (at: string) => {
      const { d, month, y, time } = parts(at, 'es');
      return `Los anuncios de Carmen Ortega están conectados con su cuenta de ${channel} desde el ${d} de ${month} de ${y} a las ${time} UTC.`;
    },
  },
] as const;

beforeAll(async () => {
  const bed = await apiTestBed({
    clock: systemClock,
    env: { PUBLIC_ORIGIN: ORIGIN },
    taskQueue: 'channel-app-languages',
    worker: true,
  });
  api = bed.api;
  const made = await bed.channel({ scopes: ['read:catalog'] });
  channel = made.channel.name;
  // Plain HTTP on loopback: the test posts the token to the app itself, as the hand-off page would.
  app = await startChannelApp({
    apiBaseUrl: `${api.url}${DISTRIBUTION_BASE}`,
    apiKey: made.key.key,
    channel,
    issuer: ORIGIN,
    fetch: fetchTrusting(api.ca),
    account: ACCOUNT,
    log: (line) => appLog.push(line),
  });
  onCleanup(() => app.close());
  await updateChannel(bed.ctx, { name: channel, redirectUrl: 'https://channel.test/owner-connect' });
  await bed.host.organization('cal-org');
  for (const [i, { owner }] of [...CASES, { owner: 'Klaus Weber' }, { owner: 'Lucía Gómez' }].entries()) {
    await bed.host.owner(`cal-own-${i}`, { organization: 'cal-org', display_name: owner });
    await bed.host.location(`cal-loc-${i}`, { organization: 'cal-org', owner: `cal-own-${i}` });
    await bed.host.property(`cal-prp-${i}`, { location: `cal-loc-${i}`, owner: `cal-own-${i}` });
    await bed.host.distribute(`cal-prp-${i}`, [channel]);
  }
});

async function mint(owner: number, locale?: string): Promise<string> {
  const res = await api.call('POST', `/internal/v1/owners/cal-own-${owner}/owner-connect`, {
    key: TEST_PLATFORM_TOKEN,
    body: { channel, ...(locale ? { locale } : {}) },
    headers: { accept: 'application/json' },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.token as string;
}

/** A page's language, heading, button and the text of `#result` (or of every paragraph), tags removed. */
function read(html: string) {
  const plain = (fragment = '') =>
    fragment
      .replace(/<[^>]+>/g, '')
      .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
      .trim();
  return {
    lang: /<html lang="([^"]+)"/.exec(html)?.[1],
    title: plain(/<h1>(.*?)<\/h1>/.exec(html)?.[1]),
    paragraphs: [...html.matchAll(/<p[^>]*>(.*?)<\/p>/g)].map((match) => plain(match[1])),
    button: plain(/<button[^>]*>(.*?)<\/button>/.exec(html)?.[1]),
    result: plain(/<p id="result"[^>]*>(.*?)<\/p>/.exec(html)?.[1]),
    connectedAt: /data-connected-at="([^"]+)"/.exec(html)?.[1],
    datetime: /<time datetime="([^"]+)"/.exec(html)?.[1],
  };
}

/** The host's browser: the hand-off's form POST, then the confirmation with the page's cookie. */
async function connect(token: string, acceptLanguage: string) {
  const headers = { 'accept-language': acceptLanguage, 'content-type': 'application/x-www-form-urlencoded' };
  const handed = await fetch(app.redirectUrl, { method: 'POST', headers, body: new URLSearchParams({ token }) });
  const confirmHtml = await handed.text();
  expect(handed.status, `${confirmHtml}\n${appLog.join('\n')}`).toBe(200);
  const cookie = handed.headers.get('set-cookie')!.split(';')[0]!;
  const pending = /name="pending" value="([^"]+)"/.exec(confirmHtml)![1]!;
  const confirmed = await fetch(`${app.url}/owner-connect/confirm`, {
    method: 'POST',
    headers: { ...headers, cookie },
    body: new URLSearchParams({ pending }),
  });
  const confirmedHtml = await confirmed.text();
  expect(confirmed.status, `${confirmedHtml}\n${appLog.join('\n')}`).toBe(200);
  return { confirm: read(confirmHtml), confirmed: read(confirmedHtml) };
}

test.each(CASES.map((c, i) => [c.token, c.lang, i] as const))(
  "a token with locale %s: the confirmation and its result are in the token's language (%s), connected_at written for people in UTC",
  async (_token, _lang, i) => {
    const c = CASES[i]!;
    // The browser asks for another language: the token's wins.
    const { confirm, confirmed } = await connect(await mint(i, c.token), c.lang === 'en' ? 'ro' : 'en');
    expect(confirm).toMatchObject({ lang: c.lang, title: c.title, button: c.button });
    expect(confirm.paragraphs).toContain(c.question());
    expect(confirmed).toMatchObject({ lang: c.lang, title: c.connected });
    expect(confirmed.connectedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(confirmed.datetime).toBe(confirmed.connectedAt);
    expect(confirmed.result).toBe(c.sentence(confirmed.connectedAt!));
  },
);

test('a token in a language the pages are not written in (de-DE) is shown in English', async () => {
  const { confirm, confirmed } = await connect(await mint(4, 'de-DE'), 'de-DE,de;q=0.9');
  expect(confirm).toMatchObject({ lang: 'en', title: 'Connect Klaus Weber?', button: 'Confirm' });
  expect(confirmed).toMatchObject({ lang: 'en', title: 'Connected' });
});

test("a token without locale follows the browser's Accept-Language (es-ES)", async () => {
  const { confirm, confirmed } = await connect(await mint(5), 'es-ES,es;q=0.9');
  expect(confirm).toMatchObject({ lang: 'es', title: '¿Conectar Lucía Gómez?', button: 'Confirmar' });
  expect(confirmed).toMatchObject({ lang: 'es', title: 'Conexión realizada' });
});
