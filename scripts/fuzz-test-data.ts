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
const dictionary = (name: string, value: string) => `[dictionaries.${name}]\nvalues = [${JSON.stringify(value)}]\n`;

function getJson(url: string, key: string, ca: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers: { authorization: `Bearer ${key}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${url}: ${res.statusCode} ${text}`)),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** TOML for the seeded channel: dictionaries and the operations' parameter bindings. */
export async function fuzzTestData(apiUrl: string, key: string, caPath: string): Promise<string> {
  const ca = await readFile(caPath, 'utf8');
  const page = (await getJson(`${apiUrl}/api/v1/distribution/properties?status=active&limit=1`, key, ca)) as {
    data: { id: string }[];
  };
  const propertyId = page.data[0]?.id;
  if (!propertyId) throw new Error('the seeded channel sees no active property');
  const paged = cursorOperations((await getJson(`${apiUrl}/api/v1/distribution/openapi.json`, key, ca)) as Description);
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
    // A cursor is the service's own signed value: every schema-valid one a generator writes is
    // refused (400 `invalid_cursor`, as the description says), and the coverage phase's positive
    // cases all carry one, so in that phase these operations are fuzzed with schema-invalid input
    // only. Their positive cases come from the fuzzing phase, which mostly leaves the cursor out.
    '[[operations]]',
    `include-operation-id = ${JSON.stringify(paged)}`,
    'phases = { coverage = { generation = { mode = "negative" } } }',
    '',
  ].join('\n');
}

interface Description {
  paths: Record<string, Record<string, { operationId?: string; parameters?: { name?: string; in?: string }[] }>>;
}

/** The operations whose query takes a `cursor`, by operation id. */
function cursorOperations(description: Description): string[] {
  return Object.values(description.paths)
    .flatMap((item) => Object.values(item))
    .filter((operation) => operation.parameters?.some((p) => p.name === 'cursor' && p.in === 'query'))
    .map((operation) => operation.operationId)
    .filter((id): id is string => id !== undefined);
}

/** Records the seeded platform interface holds: the refs (and an installation's id) it is fuzzed with. */
export interface PlatformSeeds {
  organization: string;
  /** An owner, a location and a property of `organization`; the location is in `country` and `zone`. */
  owner: string;
  location: string;
  property: string;
  /** Another property and guest for the deletions, so the others stay for the operations after them. */
  spare_property: string;
  guest: string;
  spare_guest: string;
  installation: string;
  channel: string;
  country: string;
  zone: string;
}

/**
 * TOML for the platform interface: its paths name the seeded records most of the time, so reads,
 * replacements and deletions reach a record instead of a 404, and the refs inside bodies (a
 * location's owner, a guest's organization, an availability update's property) name records that
 * exist. As on the distribution interface, the coverage phase (which takes no test data) is left
 * out for the operations whose schema-valid input names other records: there it could only be
 * refused. Two writes check rules between fields no JSON Schema states (a property's rate plans,
 * fees and capacity; an availability update's range of nights): their schema-valid input is
 * mostly refused by design, so they are out of the warnings; every check still runs on them.
 */
export function platformTestData(seeds: PlatformSeeds): string {
  const dictionaries = (Object.entries(seeds) as [string, string][]).map(([name, value]) => dictionary(name, value));
  const bind = (name: string) => `{ dictionary = "${name}", probability = ${SEEDED_SHARE} }`;
  const operations = (ids: string[], parameters: Record<string, string>, settings: string[] = []) => [
    '[[operations]]',
    `include-operation-id = ${JSON.stringify(ids)}`,
    `parameters = { ${Object.entries(parameters)
      .map(([parameter, seed]) => `${JSON.stringify(parameter)} = ${bind(seed)}`)
      .join(', ')} }`,
    ...settings,
    '',
  ];
  const noCoverage = 'phases = { coverage = { enabled = false } }';
  return [
    ...dictionaries,
    dictionary('from', utcDate(2)),
    dictionary('to', utcDate(4)),
    dictionary('stats_from', utcDate(-10)),
    ...operations(['getOrganization', 'putOrganization', 'deleteOrganization', 'postInstallation'], {
      'path.ref': 'organization',
    }),
    ...operations(['getOwner', 'deleteOwner'], { 'path.ref': 'owner' }),
    ...operations(['putOwner'], { 'path.ref': 'owner', 'body.organization': 'organization' }, [noCoverage]),
    ...operations(['postOwnerConnect'], { 'path.ref': 'owner', 'body.channel': 'channel' }, [noCoverage]),
    ...operations(['getLocation', 'deleteLocation'], { 'path.ref': 'location' }),
    ...operations(
      ['putLocation'],
      {
        'path.ref': 'location',
        'body.organization': 'organization',
        'body.owner': 'owner',
        'body.address.country': 'country',
        'body.timezone': 'zone',
      },
      [noCoverage],
    ),
    ...operations(['getSourceProperty', 'getDistribution', 'getPropertyListings'], { 'path.ref': 'property' }),
    ...operations(['deleteProperty'], { 'path.ref': 'spare_property' }),
    ...operations(['getPropertyStats'], { 'path.ref': 'property', 'query.from': 'stats_from', 'query.to': 'from' }, [
      noCoverage,
    ]),
    ...operations(['putProperty'], { 'path.ref': 'property', 'body.location': 'location', 'body.owner': 'owner' }, [
      'warnings = false',
    ]),
    ...operations(['putDistribution'], { 'path.ref': 'property', 'body.channels[*]': 'channel' }, [noCoverage]),
    ...operations(['getInstallation', 'patchInstallation', 'postInstallationToken'], { 'path.id': 'installation' }),
    ...operations(['getGuest'], { 'path.ref': 'guest' }),
    ...operations(['deleteGuest'], { 'path.ref': 'spare_guest' }),
    ...operations(['putGuest'], { 'path.ref': 'guest', 'body.organization': 'organization' }, [noCoverage]),
    ...operations(['createHostSession'], { 'body.organization': 'organization' }, [noCoverage]),
    ...operations(['getVatRates', 'putVatRates'], { 'path.country': 'country' }),
    ...operations(
      ['postAvailability'],
      { 'body.updates[*].property': 'property', 'body.updates[*].from': 'from', 'body.updates[*].to': 'to' },
      ['warnings = false'],
    ),
  ].join('\n');
}
