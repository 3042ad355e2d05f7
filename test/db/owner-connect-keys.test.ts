import { describe, expect, test } from 'vitest';
import { allKeys } from '../../db/owner-connect-keys.ts';
import { systemClock } from '../../domain/clock.ts';
import { advanceKeyRotation, rotateKeyEarly } from '../../services/owner-connect/key-rotation.ts';
import { createLogger } from '../../infra/logger.ts';
import { parseKeyRing } from '../../infra/secrets.ts';
import { resealOwnerConnectKeys } from '../../services/owner-connect/key-housekeeping.ts';
import { signingKeyForToken } from '../../services/owner-connect/signing-keys.ts';
import { freshDatabase } from '../support/database.ts';
import { adminContext } from '../support/fixtures.ts';
import { devServerClient } from '../support/temporal.ts';

// The signing-key rules on a real database, hour by hour at instants the test chooses.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-11-01T00:00:00Z');
const at = (ms: number) => new Date(T0 + ms);

async function context() {
  const { orm } = await freshDatabase();
  return { orm, ctx: adminContext(orm, await devServerClient(), systemClock) };
}

describe('owner-connect signing keys', () => {
  test('no token is signed by a key published less than 24 hours before, except the first key of the deployment', async () => {
    const { orm, ctx } = await context();
    // An operator's rotation before any token: the pending key is the deployment's first, and
    // the first token lets it sign at once (the bootstrap).
    const pending = await rotateKeyEarly(ctx, { at: at(0), compromised: false });
    const first = await signingKeyForToken(ctx, at(HOUR));
    expect(first.kid).toBe(pending.kid);
    expect((await allKeys(orm.em.fork()))[0]).toMatchObject({ kid: pending.kid, signedAtOnce: 'bootstrap' });

    const second = await rotateKeyEarly(ctx, { at: at(2 * HOUR), compromised: false });
    const signers: string[] = [];
    for (let hour = 2; hour <= 30; hour += 1) {
      await advanceKeyRotation(ctx, at(hour * HOUR), 30);
      const { kid } = await signingKeyForToken(ctx, at(hour * HOUR));
      signers.push(kid);
      const row = (await allKeys(orm.em.fork())).find((k) => k.kid === kid)!;
      if (row.signedAtOnce === null) expect(hour * HOUR - (row.publishedAt.getTime() - T0)).toBeGreaterThanOrEqual(DAY);
    }
    // Published at 02:00, the second key signs from 02:00 the next day (hour 26), not before.
    expect(signers.indexOf(second.kid)).toBe(26 - 2);
    expect(signers.slice(0, 24).every((kid) => kid === first.kid)).toBe(true);
  });

  test('private keys sealed under a retiring server key are sealed again under the newest, so the signer still signs once it is retired', async () => {
    const { orm, ctx } = await context();
    const OLD = 'old-server-secret-0123456789abcdef-0123';
    const NEW = 'new-server-secret-0123456789abcdef-4567';
    const ring = (serverSecret: string | undefined, serverSecrets: string | undefined) => ({
      ring: parseKeyRing({ serverSecret, serverSecrets, serverGeoSecret: OLD }),
      platformTokenHash: new Uint8Array(32),
    });
    const { kid } = await signingKeyForToken({ ...ctx, secrets: ring(OLD, undefined) }, at(0));
    const log = createLogger('silent');
    expect(await resealOwnerConnectKeys({ orm, log, secrets: ring(OLD, `1:${NEW}`) })).toBe(1);
    expect((await allKeys(orm.em.fork()))[0]!.privateJwk).toMatch(/^v2\.1\./);
    expect((await signingKeyForToken({ ...ctx, secrets: ring(undefined, `1:${NEW}`) }, at(HOUR))).kid).toBe(kid);
    // Done once: a second sweep has nothing left to seal.
    expect(await resealOwnerConnectKeys({ orm, log, secrets: ring(OLD, `1:${NEW}`) })).toBe(0);
  });

  test('concurrent first tokens create one key, and all sign with it', async () => {
    const { orm, ctx } = await context();
    const kids = await Promise.all(Array.from({ length: 6 }, () => signingKeyForToken(ctx, at(0)).then((k) => k.kid)));
    expect(new Set(kids).size).toBe(1);
    expect(await allKeys(orm.em.fork())).toHaveLength(1);
  });
});
