import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { canonicalJson } from '../../domain/catalogue/projection.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { yearsAfter, type Platform } from '../support/catalogue.ts';
import type { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import {
  ChannelSync,
  createChannelClient,
  MemorySyncStore,
  type ChannelClient,
  type HeldRecord,
} from '../../clients/channel-kit/src/index.ts';
import { fetchTrusting, kitClient, type TestFetch } from '../support/channel-kit.ts';

/**
 * A channel that syncs incrementally by the contract's rules (the channel kit's sync helper,
 * clients/channel-kit/src/sync.ts) must end every sync holding exactly what a fresh full listing
 * shows it, and what an independent model of the platform's writes says the channel is given.
 * Random sequences of platform writes, distribution changes and syncs of two channels drive it;
 * the clock moves 0-3 s per step, so many changes share a second and the inclusive
 * `updated_since` matters.
 */

const BASE = '/api/v1/distribution';
const PROPERTY_REFS = 4;
const LOCATIONS = 2;
const CHANNELS = 2;
/** runs x actions per run: at least 2,000 steps in all, about 40 s alone on the CI machine. REFERENCE_CHANNEL_RUNS=500 soaks longer. */
const RUNS = Number(process.env.REFERENCE_CHANNEL_RUNS ?? 60);
/**
 * Shrinking a failure reruns whole sequences: after this many reruns the remaining candidates are
 * not run, and the smallest failing case found so far is reported. The bound is work, not time,
 * so a loaded machine runs the same property as an idle one.
 */
const SHRINK_RUNS = 100;
/** Room for every run and every shrinking rerun at several times their pace on an idle machine (~0.8 s). */
const TEST_TIMEOUT_MS = (RUNS + SHRINK_RUNS) * 4_000;
const MIN_ACTIONS = 30;
const MAX_ACTIONS = 45;

type CatalogueKind = 'locations' | 'owners' | 'properties';
const CATALOGUE_KINDS: readonly CatalogueKind[] = ['locations', 'owners', 'properties'];
type ChannelRecord = HeldRecord;

/** The kit's sync helper as this test reads it: its copy in memory, and what broke the contract. */
class ReferenceChannel {
  /** Every time the service broke the version rule or the tombstone shape, in words. */
  readonly violations: string[] = [];
  private readonly store = new MemorySyncStore();
  private readonly helper: ChannelSync;
  constructor(client: ChannelClient, options: { limit?: number } = {}) {
    this.helper = new ChannelSync(client, {
      store: this.store,
      pageSize: options.limit ?? 100,
      onAnomaly: (anomaly) => this.violations.push(anomaly.message),
    });
  }
  sync() {
    return this.helper.sync();
  }
  visible(kind: CatalogueKind): Map<string, ChannelRecord> {
    return this.store.visible(kind);
  }
  all(kind: CatalogueKind): Map<string, ChannelRecord> {
    return this.store.all(kind);
  }
}

let api: TestApi;
let fetch: TestFetch;
let clock: TestClock;
let ctx: AdminContext;
let host: Platform;
/** A classification's validity, valid or expired, from the test's clock (which moves by hours at most). */
let validUntil: string;
let expiredOn: string;

beforeAll(async () => {
  ({ api, clock, ctx, host } = await apiTestBed());
  fetch = fetchTrusting(api.ca);
  validUntil = yearsAfter(clock.now(), 5);
  expiredOn = yearsAfter(clock.now(), -5);
});

// ---------------------------------------------------------------------------------------------
// Actions

type Channel = 0 | 1;
type Precision = 200 | 500 | 1000;
type Visibility = 'exact' | 'approximate';

interface PropertyContent {
  loc: number;
  units: number;
  status: 'active' | 'inactive';
  /** Picks the name text; the name also carries the property's tag. */
  variant: number;
  /** Per channel: the value of its extension, or null for none. */
  ext: [number | null, number | null];
  /** A valid Romanian classification; an expired one makes the property unpublishable. */
  valid: boolean;
}

type Action = { dt: number } & (
  | ({ t: 'put'; ref: number } & PropertyContent)
  | { t: 'ext'; ref: number; ch: Channel; value: number | null }
  | { t: 'distribute'; ref: number; channels: [boolean, boolean] }
  | { t: 'delete'; ref: number }
  | { t: 'location'; loc: number; precision: Precision | null; visibility: Visibility | null }
  | { t: 'sync'; ch: Channel }
  | { t: 'idle' }
);

const refArb = fc.nat({ max: PROPERTY_REFS - 1 });
const channelArb = fc.constantFrom<Channel>(0, 1);
const extArb = fc.option(fc.nat({ max: 2 }), { nil: null, freq: 2 });
/** Seconds the clock moves before a step: mostly none, so many changes and syncs share a second. */
const dtArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.constant(1) },
  { weight: 2, arbitrary: fc.integer({ min: 2, max: 3 }) },
);

/**
 * Runs are long (the issue asks for thousands of steps), so arrays keep a minimum length; the
 * first option, an idle step that only moves the clock, is what cross-shrinking turns an action
 * into, which leaves short failing sequences once the idle steps are read past.
 */
const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { withCrossShrink: true },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('idle' as const), dt: dtArb }) },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('put' as const),
      dt: dtArb,
      ref: refArb,
      loc: fc.nat({ max: LOCATIONS - 1 }),
      units: fc.integer({ min: 1, max: 3 }),
      status: fc.constantFrom('active' as const, 'inactive' as const),
      variant: fc.nat({ max: 2 }),
      ext: fc.tuple(extArb, extArb),
      valid: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('ext' as const), dt: dtArb, ref: refArb, ch: channelArb, value: extArb }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('distribute' as const),
      dt: dtArb,
      ref: refArb,
      channels: fc.tuple(fc.boolean(), fc.boolean()),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('delete' as const), dt: dtArb, ref: refArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('location' as const),
      dt: dtArb,
      loc: fc.nat({ max: LOCATIONS - 1 }),
      precision: fc.constantFrom<Precision | null>(null, 200, 500, 1000),
      visibility: fc.constantFrom<Visibility | null>(null, 'exact', 'approximate'),
    }),
  },
  { weight: 5, arbitrary: fc.record({ t: fc.constant('sync' as const), dt: dtArb, ch: channelArb }) },
);

// ---------------------------------------------------------------------------------------------
// The model: the platform's source as written, and what each channel is given from it

interface PropertyModel extends PropertyContent {
  gen: number;
  channels: [boolean, boolean];
}
interface LocationModel {
  precision: Precision | null;
  visibility: Visibility | null;
}

interface Expected {
  /** Keyed by tag (property), location name, owner display name; value: the fields checked. */
  properties: Map<string, Record<string, unknown>>;
  locations: Map<string, Record<string, unknown>>;
  owners: Map<string, Record<string, unknown>>;
}

class Model {
  readonly props: (PropertyModel | null)[] = Array.from({ length: PROPERTY_REFS }, () => null);
  readonly gens: number[] = Array.from({ length: PROPERTY_REFS }, () => 0);
  readonly locs: LocationModel[] = Array.from({ length: LOCATIONS }, () => ({ precision: null, visibility: null }));
  readonly tag: string;
  constructor(tag: string) {
    this.tag = tag;
  }

  propertyTag(ref: number, gen: number): string {
    return `${this.tag}-p${ref}-g${gen}`;
  }
  locationName(loc: number): string {
    return `${this.tag}-l${loc}`;
  }
  ownerName(loc: number): string {
    return `${this.tag}-o${loc}`;
  }

  /** Tags of property generations that were deleted. */
  deadTags(): Set<string> {
    const dead = new Set<string>();
    for (let ref = 0; ref < PROPERTY_REFS; ref += 1) {
      const live = this.props[ref]?.gen;
      for (let gen = 1; gen <= this.gens[ref]!; gen += 1) if (gen !== live) dead.add(this.propertyTag(ref, gen));
    }
    return dead;
  }

  expected(ch: Channel, channelName: string): Expected {
    const properties = new Map<string, Record<string, unknown>>();
    const statusesAt: ('active' | 'inactive')[][] = Array.from({ length: LOCATIONS }, () => []);
    this.props.forEach((p, ref) => {
      if (!p || !p.channels[ch] || !p.valid) return;
      const ext = p.ext[ch];
      properties.set(this.propertyTag(ref, p.gen), {
        status: p.status,
        units: p.units,
        name: nameOf(this.propertyTag(ref, p.gen), p.variant),
        extensions: ext === null ? {} : { [channelName]: { tier: `t${ext}` } },
        location: this.locationName(p.loc),
        owner: this.ownerName(p.loc),
      });
      statusesAt[p.loc]!.push(p.status);
    });
    const locations = new Map<string, Record<string, unknown>>();
    const owners = new Map<string, Record<string, unknown>>();
    statusesAt.forEach((statuses, loc) => {
      if (statuses.length === 0) return;
      const status = statuses.includes('active') ? 'active' : 'inactive';
      const visibility = this.locs[loc]!.visibility ?? 'approximate';
      locations.set(this.locationName(loc), {
        status,
        address_visibility: visibility,
        precision_m: visibility === 'approximate' ? (this.locs[loc]!.precision ?? 500) : null,
      });
      owners.set(this.ownerName(loc), { status });
    });
    return { properties, locations, owners };
  }
}

function nameOf(tag: string, variant: number): Record<string, string> {
  const words = ['Apartment with a view', 'Quiet flat', 'Flat near the castle'];
  const cuvinte = ['Apartament cu vedere', 'Apartament liniștit', 'Apartament lângă castel'];
  return { en: `${tag} ${words[variant]!}`, ro: `${tag} ${cuvinte[variant]!}` };
}

/** The model's key of a served record: the tag in a property's name, a location's name, an owner's display name. */
function keyOf(kind: CatalogueKind, record: ChannelRecord): string {
  if (kind === 'properties') return ((record.name as Record<string, string>).en ?? '').split(' ')[0]!;
  if (kind === 'locations') return record.name as string;
  return record.display_name as string;
}

// ---------------------------------------------------------------------------------------------
// Reading the service

/** A fresh full listing of one list: every page, no `updated_since`. */
async function fullListing(key: string, kind: CatalogueKind, limit: number): Promise<Map<string, ChannelRecord>> {
  const records = new Map<string, ChannelRecord>();
  let cursor: string | null = null;
  do {
    const res = await api.call(
      'GET',
      `${BASE}/${kind}?limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      { key },
    );
    if (res.status !== 200) throw new Error(`full listing of ${kind} answered ${res.status}: ${res.text}`);
    for (const record of res.json.data as ChannelRecord[]) {
      if (records.has(record.id)) throw new Error(`full listing of ${kind} names ${record.id} twice`);
      records.set(record.id, record);
    }
    cursor = res.json.next_cursor;
  } while (cursor !== null);
  return records;
}

/** What the model checks of a served record, in the shape Model.expected gives. */
function observed(
  kind: CatalogueKind,
  record: ChannelRecord,
  names: { location: Map<string, string>; owner: Map<string, string> },
): Record<string, unknown> {
  if (kind === 'properties') {
    return {
      status: record.status,
      units: record.units,
      name: record.name,
      extensions: record.extensions,
      location: names.location.get(record.location_id as string) ?? `unknown ${String(record.location_id)}`,
      owner: names.owner.get(record.owner_id as string) ?? `unknown ${String(record.owner_id)}`,
    };
  }
  if (kind === 'locations') {
    const geo = record.geo as { precision_m?: number };
    return {
      status: record.status,
      address_visibility: record.address_visibility,
      precision_m: geo.precision_m ?? null,
    };
  }
  return { status: record.status };
}

const sorted = (map: Map<string, unknown>) =>
  Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

// ---------------------------------------------------------------------------------------------
// One run

interface ChannelState {
  name: string;
  key: string;
  client: ReferenceChannel;
  /** Model key -> external id, for as long as the run lasts (ids are never reused). */
  ids: Record<CatalogueKind, Map<string, string>>;
  /** The last fresh full listing per kind, by model key. */
  last: Record<CatalogueKind, Map<string, ChannelRecord>>;
  /** Model signature per kind and key at the last check, and the keys whose signature moved since. */
  signatures: Record<CatalogueKind, Map<string, string>>;
  moved: Set<string>;
  /** Highest version the client held per id at the last check. */
  versions: Map<string, number>;
  checks: number;
}

let runCounter = 0;
let stepsRun = 0;
let idleSteps = 0;
let syncsChecked = 0;

function signaturesOf(expected: Expected): Record<CatalogueKind, Map<string, string>> {
  return {
    properties: new Map([...expected.properties].map(([k, v]) => [k, canonicalJson(v)])),
    locations: new Map([...expected.locations].map(([k, v]) => [k, canonicalJson(v)])),
    owners: new Map([...expected.owners].map(([k, v]) => [k, canonicalJson(v)])),
  };
}

/** The steps that do something, one a line, with the clock's moves folded in: for failure reports. */
function describeSteps(actions: Action[]): string {
  let wait = 0;
  const lines: string[] = [];
  for (const action of actions) {
    wait += action.dt;
    if (action.t === 'idle') continue;
    const { t, dt: _dt, ...rest } = action;
    lines.push(`  +${wait}s ${t} ${JSON.stringify(rest)}`);
    wait = 0;
  }
  return lines.join('\n');
}

async function run(actions: Action[], limit: number): Promise<void> {
  try {
    await runSteps(actions, limit);
  } catch (error) {
    // Keep the assertion error itself, so its diff is still shown.
    if (error instanceof Error)
      error.message += `\nrun ${runCounter}, limit ${limit}, steps (then sync 0, sync 1):\n${describeSteps(actions)}`;
    throw error;
  }
}

async function runSteps(actions: Action[], limit: number): Promise<void> {
  runCounter += 1;
  const tag = `rc${runCounter}`;
  const model = new Model(tag);
  const org = `${tag}-org`;
  await host.organization(org);
  for (let loc = 0; loc < LOCATIONS; loc += 1) {
    await host.owner(`${tag}-own${loc}`, { organization: org, type: 'individual', display_name: model.ownerName(loc) });
    await host.location(`${tag}-loc${loc}`, {
      organization: org,
      owner: `${tag}-own${loc}`,
      name: model.locationName(loc),
    });
  }
  const channels: ChannelState[] = [];
  for (let ch = 0; ch < CHANNELS; ch += 1) {
    const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    channels.push({
      name: channel.name,
      key: key.key,
      client: new ReferenceChannel(kitClient(api, key.key, { fetch }), { limit }),
      ids: { locations: new Map(), owners: new Map(), properties: new Map() },
      last: { locations: new Map(), owners: new Map(), properties: new Map() },
      signatures: { locations: new Map(), owners: new Map(), properties: new Map() },
      moved: new Set(),
      versions: new Map(),
      checks: 0,
    });
  }

  const putProperty = async (ref: number, p: PropertyModel) => {
    const ext: Record<string, Record<string, unknown>> = {};
    p.ext.forEach((value, ch) => {
      if (value !== null) ext[channels[ch]!.name] = { tier: `t${value}` };
    });
    const classification = {
      certificate_number: 'RO-123/2025',
      category: 'apartament',
      rating_kind: 'stars',
      rating: 3,
      valid_until: p.valid ? validUntil : expiredOn,
      country: 'RO',
    };
    await host.property(`${tag}-p${ref}`, {
      location: `${tag}-loc${p.loc}`,
      owner: `${tag}-own${p.loc}`,
      units: p.units,
      status: p.status,
      name: nameOf(model.propertyTag(ref, p.gen), p.variant),
      extensions: ext,
      legal: { classification },
    });
  };

  const notePending = () => {
    for (const [ch, state] of channels.entries()) {
      const now = signaturesOf(model.expected(ch as Channel, state.name));
      for (const kind of CATALOGUE_KINDS) {
        const keys = new Set([...now[kind].keys(), ...state.signatures[kind].keys()]);
        for (const key of keys)
          if (now[kind].get(key) !== state.signatures[kind].get(key)) state.moved.add(`${kind}:${key}`);
      }
    }
  };

  const check = async (ch: Channel) => {
    const state = channels[ch]!;
    const { client } = state;
    await client.sync();
    expect(client.violations, 'the version rule held').toEqual([]);
    const expected = model.expected(ch, state.name);
    const fresh = {} as Record<CatalogueKind, Map<string, ChannelRecord>>;
    for (const kind of CATALOGUE_KINDS) fresh[kind] = await fullListing(state.key, kind, 3);

    // 1. The incrementally synced copy is exactly the fresh full listing.
    for (const kind of CATALOGUE_KINDS) {
      expect(sorted(client.visible(kind)), `${kind}: incremental copy = full listing`).toEqual(sorted(fresh[kind]));
    }

    // 2. The full listing is what the model says the channel is given.
    const names = {
      location: new Map([...fresh.locations.values()].map((r) => [r.id, r.name as string])),
      owner: new Map([...fresh.owners.values()].map((r) => [r.id, r.display_name as string])),
    };
    const byKey = {} as Record<CatalogueKind, Map<string, ChannelRecord>>;
    for (const kind of CATALOGUE_KINDS) {
      byKey[kind] = new Map();
      for (const record of fresh[kind].values()) {
        const key = keyOf(kind, record);
        expect(byKey[kind].has(key), `${kind}: ${key} listed once`).toBe(false);
        byKey[kind].set(key, record);
      }
      const seen = new Map([...byKey[kind]].map(([key, record]) => [key, observed(kind, record, names)]));
      expect(seen.size, `${kind}: count`).toBe(expected[kind].size);
      expect(sorted(seen), `${kind}: model`).toEqual(sorted(expected[kind]));
    }

    // 3. Ids: one per model key for the whole run, never reused, never another channel's.
    const others = channels.filter((other) => other !== state);
    for (const kind of CATALOGUE_KINDS) {
      for (const [key, record] of byKey[kind]) {
        const known = state.ids[kind].get(key);
        if (known === undefined) {
          expect([...state.ids[kind].values()], `${kind}: a new ${key} gets a new id`).not.toContain(record.id);
          state.ids[kind].set(key, record.id);
        } else {
          expect(record.id, `${kind}: ${key} keeps its id`).toBe(known);
        }
        for (const other of others)
          expect([...other.ids[kind].values()], 'ids differ between channels').not.toContain(record.id);
      }
    }

    // 4. Versions: an unchanged view keeps record and version; a changed one moves up.
    for (const kind of CATALOGUE_KINDS) {
      for (const [key, record] of byKey[kind]) {
        const before = state.last[kind].get(key);
        if (!before) continue;
        if (state.moved.has(`${kind}:${key}`)) {
          expect(record.version, `${kind}: ${key} changed, its version moves up`).toBeGreaterThan(before.version);
        } else {
          expect(record, `${kind}: ${key} did not change for this channel, nor does its record`).toEqual(before);
        }
      }
    }
    for (const [id, version] of state.versions) {
      const held = [...CATALOGUE_KINDS].map((kind) => client.all(kind).get(id)).find((r) => r !== undefined);
      expect(held, `the client still holds ${id}`).toBeDefined();
      expect(held!.version, `${id}: the copy's version never goes down`).toBeGreaterThanOrEqual(version);
    }

    // 5. Whatever the client holds beyond the listing is a tombstone: `deleted` for a deleted property.
    const dead = model.deadTags();
    for (const kind of CATALOGUE_KINDS) {
      for (const [id, record] of client.all(kind)) {
        if (fresh[kind].has(id)) continue;
        expect(['withdrawn', 'deleted'], `${kind}: ${id} not listed, held as a tombstone`).toContain(record.status);
      }
    }
    for (const [key, id] of state.ids.properties) {
      if (!dead.has(key)) continue;
      expect(client.all('properties').get(id)?.status, `deleted property ${key} is a deleted tombstone`).toBe(
        'deleted',
      );
    }

    state.last = byKey;
    state.signatures = signaturesOf(expected);
    state.moved = new Set();
    state.versions = new Map(
      CATALOGUE_KINDS.flatMap((kind) => [...client.all(kind)].map(([id, r]) => [id, r.version] as const)),
    );
    state.checks += 1;
    syncsChecked += 1;
  };

  for (const action of [...actions, { t: 'sync', ch: 0, dt: 1 } as const, { t: 'sync', ch: 1, dt: 0 } as const]) {
    clock.advance(action.dt * 1000);
    stepsRun += 1;
    switch (action.t) {
      case 'put': {
        const current = model.props[action.ref];
        const gen = current?.gen ?? (model.gens[action.ref]! += 1);
        const next: PropertyModel = {
          gen,
          channels: current?.channels ?? [false, false],
          loc: action.loc,
          units: action.units,
          status: action.status,
          variant: action.variant,
          ext: [...action.ext],
          valid: action.valid,
        };
        await putProperty(action.ref, next);
        model.props[action.ref] = next;
        break;
      }
      case 'ext': {
        const current = model.props[action.ref];
        if (!current) break;
        const next: PropertyModel = { ...current, ext: [...current.ext] };
        next.ext[action.ch] = action.value;
        await putProperty(action.ref, next);
        model.props[action.ref] = next;
        break;
      }
      case 'distribute': {
        const current = model.props[action.ref];
        if (!current) break;
        await host.distribute(
          `${tag}-p${action.ref}`,
          channels.filter((_, ch) => action.channels[ch]).map((c) => c.name),
        );
        current.channels = [...action.channels];
        break;
      }
      case 'delete': {
        if (!model.props[action.ref]) break;
        await host.remove('properties', `${tag}-p${action.ref}`);
        model.props[action.ref] = null;
        break;
      }
      case 'location': {
        await host.location(`${tag}-loc${action.loc}`, {
          organization: org,
          owner: `${tag}-own${action.loc}`,
          name: model.locationName(action.loc),
          ...(action.precision === null ? {} : { precision_m: action.precision }),
          ...(action.visibility === null ? {} : { address_visibility: action.visibility }),
        });
        model.locs[action.loc] = { precision: action.precision, visibility: action.visibility };
        break;
      }
      case 'sync':
        await check(action.ch);
        break;
      case 'idle':
        idleSteps += 1;
        break;
    }
    if (action.t !== 'sync') notePending();
  }
  for (const state of channels) expect(state.checks).toBeGreaterThan(0);
}

describe('the reference channel itself', () => {
  /** A scripted service: answers each GET from a queue, keyed by list, and notes the queries. */
  function scripted(pages: Record<CatalogueKind, { data: Record<string, unknown>[]; next_cursor: string | null }[]>) {
    const queries: string[] = [];
    const fake: TestFetch = (input) => {
      const request = input as Request;
      const url = new URL(request.url);
      queries.push(`${request.method} ${url.pathname}${url.search}`);
      const kind = CATALOGUE_KINDS.find((k) => url.pathname.endsWith(`/${k}`))!;
      const page = pages[kind].shift() ?? { data: [], next_cursor: null };
      return Promise.resolve(Response.json(page));
    };
    return { fake: createChannelClient({ baseUrl: `https://scripted.test${BASE}`, key: 'key', fetch: fake }), queries };
  }
  const property = (id: string, version: number, updatedAt: string, units = 1) => ({
    id,
    status: 'active',
    version,
    updated_at: updatedAt,
    units,
  });

  test('pages in full first, then sends back the largest updated_at; applies only higher versions and keeps tombstones', async () => {
    const { fake, queries } = scripted({
      locations: [],
      owners: [],
      properties: [
        { data: [property('prp_a', 3, '2026-11-22T10:00:05Z')], next_cursor: 'c1' },
        { data: [property('prp_b', 4, '2026-11-22T10:00:07Z')], next_cursor: null },
        {
          data: [
            property('prp_a', 2, '2026-11-22T10:00:07Z', 9),
            property('prp_b', 4, '2026-11-22T10:00:07Z'),
            property('prp_c', 6, '2026-11-22T10:00:08Z'),
          ],
          next_cursor: null,
        },
        {
          data: [
            { id: 'prp_b', status: 'withdrawn', version: 7, updated_at: '2026-11-22T10:00:09Z' },
            property('prp_c', 8, '2026-11-22T10:00:09Z', 2),
          ],
          next_cursor: null,
        },
      ],
    });
    const client = new ReferenceChannel(fake, { limit: 1 });
    await client.sync();
    await client.sync();
    expect(client.violations).toEqual(['properties prp_a: version went down from 3 (active) to 2 (active)']);
    expect(client.all('properties').get('prp_a')).toMatchObject({ version: 3, units: 1 });
    await client.sync();
    expect([...client.visible('properties').keys()].sort()).toEqual(['prp_a', 'prp_c']);
    expect(client.all('properties').get('prp_b')).toEqual({
      id: 'prp_b',
      status: 'withdrawn',
      version: 7,
      updated_at: '2026-11-22T10:00:09Z',
    });
    expect(client.visible('properties').get('prp_c')).toMatchObject({ version: 8, units: 2 });
    const listed = queries.filter((q) => q.includes('/properties?'));
    expect(listed).toEqual([
      `GET ${BASE}/properties?limit=1`,
      `GET ${BASE}/properties?limit=1&cursor=c1`,
      `GET ${BASE}/properties?limit=1&updated_since=2026-11-22T10%3A00%3A07Z`,
      `GET ${BASE}/properties?limit=1&updated_since=2026-11-22T10%3A00%3A08Z`,
    ]);
    // Nothing received on a list yet: it stays a full listing.
    expect(queries.filter((q) => q.includes('/locations?'))).toEqual([
      `GET ${BASE}/locations?limit=1`,
      `GET ${BASE}/locations?limit=1`,
      `GET ${BASE}/locations?limit=1`,
    ]);
  });
});

describe('a reference channel syncing incrementally', () => {
  test(
    'always holds what a fresh full listing and the model show it, and versions never go down',
    async () => {
      const started = Date.now();
      let runs = 0;
      let failed = false;
      await fc.assert(
        fc.asyncProperty(
          fc.array(actionArb, { minLength: MIN_ACTIONS, maxLength: MAX_ACTIONS }),
          fc.constantFrom(1, 2, 5, 100),
          async (actions, limit) => {
            // Past the shrinking budget a candidate is not run (counted as passing), so shrinking
            // ends on the smallest failure it found.
            if (failed && runs >= RUNS + SHRINK_RUNS) return;
            runs += 1;
            try {
              await run(actions, limit);
            } catch (error) {
              failed = true;
              throw error;
            }
          },
        ),
        { numRuns: RUNS },
      );
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `reference channel: ${runs} runs, ${stepsRun} steps (${idleSteps} of them idle), ${syncsChecked} checked syncs, ${seconds} s`,
      );
      expect(runs).toBe(RUNS);
      expect(stepsRun - idleSteps).toBeGreaterThanOrEqual(2000);
    },
    TEST_TIMEOUT_MS,
  );
});
