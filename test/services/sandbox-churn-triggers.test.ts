import { beforeAll, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { findChannelByName } from '../../db/channels.ts';
import { churnChanges } from '../../domain/sandbox/churn.ts';
import type { Scope } from '../../domain/scopes.ts';
import { getSource } from '../../services/catalogue.ts';
import { getDistribution } from '../../services/distribution.ts';
import { generateSandbox } from '../../services/sandbox-catalogue.ts';
import { applySandboxChurn } from '../../services/sandbox-churn.ts';
import { trigger } from '../../services/sandbox-trigger.ts';
import { triggerRefPrefix, viewRef } from '../../services/sandbox-trigger-view.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { channelWithKey } from '../support/fixtures.ts';

// The sandbox churn beside a channel's trigger records, on a real PostgreSQL: the churn moves the
// generated catalogue and never a record a channel's triggers made (`sbx-trigger-…`), which only
// that channel's triggers move.

const BASE = '/api/v1/distribution';
const CHANNELS = ['sbx-travel'];
let ctx: AdminContext;
let api: TestApi;

beforeAll(async () => {
  ({ ctx, api } = await apiTestBed());
  // Few generated properties, so that the churn's picks would often land on the trigger property.
  await generateSandbox(ctx, { seed: 2, properties: 3, channels: CHANNELS });
});

test("the churn changes the generated properties and leaves a channel's trigger records as its triggers left them", async () => {
  const scopes: Scope[] = ['read:catalog', 'read:ari'];
  const { key, channel: created } = await channelWithKey(ctx, { scopes });
  const channel = (await findChannelByName(ctx.orm.em.fork(), created.name))!;
  await trigger(ctx, channel, scopes, 'property.updated');
  const property = viewRef(channel.id, 'property');
  expect(property.startsWith(triggerRefPrefix(channel.id))).toBe(true);
  expect(property.startsWith('sbx-trigger-')).toBe(true);
  const stateOf = async () => ({
    source: await getSource(ctx, 'property', property),
    distribution: await getDistribution(ctx, property),
  });
  const events = async () => {
    const res = await api.call('GET', `${BASE}/events?limit=500`, { key: key.key });
    expect(res.status, res.text).toBe(200);
    return (res.json.data as { id: string }[]).map((event) => event.id);
  };
  const before = { state: await stateOf(), events: await events() };
  expect(before.state.distribution.channels).toEqual([channel.name]);

  const outcome = await applySandboxChurn(
    { ...ctx, environment: 'sandbox' },
    { channels: CHANNELS, changes: churnChanges(5, 0, 60) },
  );
  // The premise: the churn did change properties, of each kind that lands on one.
  for (const kind of ['prices', 'availability', 'text', 'withdraw'])
    expect(outcome.applied[kind as keyof typeof outcome.applied] ?? 0, kind).toBeGreaterThan(0);

  expect(await stateOf()).toEqual(before.state);
  // Every change to the property would be an event in the channel's log: there is none.
  expect(await events()).toEqual(before.events);
});
