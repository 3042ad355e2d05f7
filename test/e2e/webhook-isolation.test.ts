import { expect, test } from 'vitest';
import { DELIVERY_SLOTS } from '../../app/worker.ts';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { platform } from '../support/catalogue.ts';
import { onCleanup } from '../support/cleanup.ts';
import { startReceiver } from '../support/receiver.ts';

// One endpoint that does not answer must not hold back the channel's others: its attempts wait
// for it (up to the contract's 10 s each) in the worker's slots, which leave room for the rest.
// On the dev server in real time, with the worker as the service configures it (createWorker).

const BASE = '/api/v1/distribution';
const CHANGES = 60;
/** Attempts of the dead endpoint that must be waiting at once while the live one drains. */
const WAITING = 10;

test('an endpoint that does not answer holds back none of the others: they receive every change while its attempts wait', async () => {
  expect(CHANGES).toBeLessThan(DELIVERY_SLOTS);
  const dead = await startReceiver();
  const live = await startReceiver();
  const bed = await apiTestBed({
    clock: systemClock,
    receiver: live,
    taskQueue: 'e2e-isolation',
    worker: true,
  });
  const { api } = bed;
  // Before the worker stops: its attempts on the dead endpoint end at once.
  onCleanup(() => dead.release());

  const { channel, key } = await bed.channel({ scopes: ['read:catalog', 'manage:webhooks'] });
  for (const url of [`${dead.url}/dead`, `${live.url}/live`]) {
    expect(
      (await api.call('POST', `${BASE}/webhooks`, { key: key.key, body: { url, events: ['property.*'] } })).status,
    ).toBe(201);
  }
  const host = platform(api);
  await host.organization('iso-org');
  await host.owner('iso-own', { organization: 'iso-org' });
  await host.location('iso-loc', { organization: 'iso-org', owner: 'iso-own' });
  await host.property('iso-p', { location: 'iso-loc', owner: 'iso-own' });
  await host.distribute('iso-p', [channel.name]);
  await live.waitFor(1, 30_000); // warm: dispatcher started, workflow bundle loaded

  dead.hold();
  for (let i = 0; i < CHANGES; i += 1)
    await host.property('iso-p', { location: 'iso-loc', owner: 'iso-own', units: 2 + (i % 2) });
  // Every change reaches the live endpoint while attempts wait on the dead one (its receiver
  // answers none of them; each gives up only after 10 s). With a worker of few slots, the dead
  // endpoint's attempts take them all and the live one gets a change every few seconds.
  await live.waitFor(1 + CHANGES, 60_000);
  const waiting = dead.received.filter((r) => r.at > Date.now() - 10_000).length;
  expect(waiting).toBeGreaterThan(WAITING);
});
