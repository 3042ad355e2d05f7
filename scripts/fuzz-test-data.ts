/**
 * Test data for `npm run fuzz`: values the seeded service accepts where no schema can say which
 * (a property the channel sees, a stay in its bookable window, a day of statistics it takes), as
 * Schemathesis dictionaries bound to the parameters that need them. Most generated cases then draw
 * these, so schema-valid requests reach the operation's work instead of a 404 or a rule the
 * description states in words; the rest stay random and keep testing refusals.
 */
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';

/** Share of generated cases that take a seeded value rather than a random one. */
const SEEDED_SHARE = 0.9;

const DAY_MS = 86_400_000;
/** UTC dates `days` from now; two days' margin keeps them inside every zone's today and window. */
const utcDate = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);

function getJson(url: string, key: string, ca: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers: { authorization: `Bearer ${key}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${url}: ${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

/** TOML for the seeded channel: dictionaries and the operations' parameter bindings. */
export async function fuzzTestData(apiUrl: string, key: string, caPath: string): Promise<string> {
  const page = (await getJson(`${apiUrl}/api/v1/distribution/properties?status=active&limit=1`, key, await readFile(caPath, 'utf8'))) as { data: { id: string }[] };
  const propertyId = page.data[0]?.id;
  if (!propertyId) throw new Error('the seeded channel sees no active property');
  const dictionary = (name: string, value: string) => `[dictionaries.${name}]\nvalues = [${JSON.stringify(value)}]\n`;
  const bind = (name: string) => `{ dictionary = "${name}", probability = ${SEEDED_SHARE} }`;
  return [
    dictionary('property', propertyId),
    dictionary('arrival', utcDate(2)),
    dictionary('departure', utcDate(4)),
    dictionary('stats_date', utcDate(-2)),
    // The coverage and examples phases take no test data, and their values break rules between
    // fields that no schema states (departure after arrival; a day of statistics within 35 days,
    // clicks at most views) or name a property no deployment has (the statistics' examples): these
    // two are fuzzed in the fuzzing phase, the quote also from its examples.
    '[[operations]]',
    'include-operation-id = "getQuote"',
    `parameters = { "query.property_id" = ${bind('property')}, "query.arrival" = ${bind('arrival')}, "query.departure" = ${bind('departure')} }`,
    'phases = { coverage = { enabled = false } }',
    '',
    '[[operations]]',
    'include-operation-id = ["putListingReport", "getListingReport"]',
    `parameters = { "path.property_id" = ${bind('property')} }`,
    '',
    '[[operations]]',
    'include-operation-id = "postListingStats"',
    `parameters = { "body.data[*].property_id" = ${bind('property')}, "body.data[*].date" = ${bind('stats_date')} }`,
    'phases = { coverage = { enabled = false }, examples = { enabled = false } }',
    '',
  ].join('\n');
}
