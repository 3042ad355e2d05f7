import { describe, expect, test } from 'vitest';
import { createChannel, setChannelStatus, updateChannel } from '../../services/channels.ts';
import { Refusal } from '../../services/refusal.ts';
import { serviceStandIns } from '../support/service-stand-ins.ts';

// services/channels.ts, the operators' channel commands, with its port in memory.

const ACME = { name: 'acme', rateLimitPerMinute: 600, redirectUrl: null, technicalContactEmail: null };

describe('channels', () => {
  test("a channel is created active at the clock's instant; a name is taken once", async () => {
    const { deps, db, clock } = serviceStandIns();
    await expect(createChannel(deps, ACME)).resolves.toMatchObject({
      name: 'acme',
      status: 'active',
      createdAt: clock.now(),
      suspendedAt: null,
    });
    await expect(createChannel(deps, { ...ACME, rateLimitPerMinute: 60 })).rejects.toThrow(
      'a channel named "acme" exists',
    );
    expect(db.tables.channels).toHaveLength(1);
  });

  test('suspending stamps the instant; making it active again clears it', async () => {
    const { deps, clock } = serviceStandIns();
    await createChannel(deps, ACME);
    clock.advance(60_000);
    await expect(setChannelStatus(deps, 'acme', 'suspended')).resolves.toMatchObject({
      status: 'suspended',
      suspendedAt: clock.now(),
    });
    await expect(setChannelStatus(deps, 'acme', 'active')).resolves.toMatchObject({
      status: 'active',
      suspendedAt: null,
    });
  });

  test('an update changes only the settings it names; an unknown channel is refused', async () => {
    const { deps } = serviceStandIns();
    await createChannel(deps, { ...ACME, technicalContactEmail: 'ops@acme.example' });
    await expect(updateChannel(deps, 'acme', { rateLimitPerMinute: 120 })).resolves.toMatchObject({
      rateLimitPerMinute: 120,
      technicalContactEmail: 'ops@acme.example',
    });
    await expect(updateChannel(deps, 'nobody', {})).rejects.toBeInstanceOf(Refusal);
    await expect(setChannelStatus(deps, 'nobody', 'suspended')).rejects.toBeInstanceOf(Refusal);
  });
});
