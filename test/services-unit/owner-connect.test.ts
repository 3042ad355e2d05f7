import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { beforeAll, describe, expect, test } from 'vitest';
import type { TokenRecord } from '../../db/owner-connect.ts';
import {
  CONFIRMATION_WINDOW_SECONDS,
  OWNER_CONNECT_ALG,
  OWNER_CONNECT_TYP,
  TOKEN_LIFETIME_SECONDS,
} from '../../domain/owner-connect.ts';
import { ProblemError } from '../../domain/problems.ts';
import {
  bindOwnerConnection,
  confirmOwnerConnection,
  expireOwnerConnectToken,
  removeOwnerConnection,
} from '../../services/owner-connect/connection.ts';
import { serviceStandIns } from '../support/service-stand-ins.ts';

// services/owner-connect/connection.ts: a channel confirms a host's token, the token's workflow
// binds it, a channel removes the connection. Port in memory, workflow client recording, tokens
// signed here with a key the in-memory key table publishes.

const NOW = '2026-11-22T10:00:00Z';
const JTI = 'a'.repeat(32);
const OWNER = 'own_01jz0000000000000000000000';
let signingKey: CryptoKey;
let publicJwk: string;

beforeAll(async () => {
  const pair = await generateKeyPair(OWNER_CONNECT_ALG);
  signingKey = pair.privateKey;
  publicJwk = JSON.stringify(await exportJWK(pair.publicKey));
});

function setUp(options: Parameters<typeof serviceStandIns>[0] = {}) {
  const standIns = serviceStandIns({ now: NOW, ...options });
  const { db, clock } = standIns;
  const channel = db.channel({ name: 'acme' });
  db.tables.signingKeys.push({
    kid: 'kid-1',
    publicJwk,
    privateJwk: null,
    createdAt: clock.now(),
    publishedAt: new Date(clock.now().getTime() - 86_400_000),
    activatedAt: null,
    retiredAt: null,
    unpublishedAt: null,
    signedAtOnce: null,
    compromisedAt: null,
    privateDestroyedAt: null,
  });
  db.tables.owners.push({ channelId: channel.id, externalId: OWNER, ownerId: 'owner-1', status: 'active' });
  const issuedAt = clock.now();
  const record = (jti = JTI, fields: Partial<TokenRecord> = {}): TokenRecord => {
    const token: TokenRecord = {
      jti,
      channelId: channel.id,
      ownerId: 'owner-1',
      ownerExternalId: OWNER,
      propertyIds: ['prp_1'],
      issuedAt,
      confirmUntil: new Date(issuedAt.getTime() + CONFIRMATION_WINDOW_SECONDS * 1000),
      state: 'waiting',
      connectedAt: null,
      ...fields,
    };
    db.tables.tokens.push(token);
    return token;
  };
  const token = (claims: Record<string, unknown> = {}) => {
    const iat = Math.floor(issuedAt.getTime() / 1000);
    return new SignJWT({
      iss: standIns.deps.config.publicOrigin,
      aud: 'acme',
      sub: OWNER,
      iat,
      exp: iat + TOKEN_LIFETIME_SECONDS,
      jti: JTI,
      property_ids: ['prp_1'],
      ...claims,
    })
      .setProtectedHeader({ alg: OWNER_CONNECT_ALG, typ: OWNER_CONNECT_TYP, kid: 'kid-1' })
      .sign(signingKey);
  };
  const caller = { channelId: channel.id, channelName: 'acme' };
  return { ...standIns, channel, record, token, caller };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error, 'the call was refused').toBeInstanceOf(ProblemError);
  return (error as ProblemError).code;
}

const BINDING = { binding: { connected_at: '2026-11-22T10:05:00Z' } };

describe('a channel confirms a token', () => {
  test("within the window, through the token's workflow; the answer names the token's properties", async () => {
    const { deps, caller, record, token, workflowCalls, clock } = setUp({
      workflows: { confirmOwnerConnect: () => Promise.resolve(BINDING) },
    });
    record();
    clock.advance(CONFIRMATION_WINDOW_SECONDS * 1000);
    await expect(confirmOwnerConnection(deps, caller, OWNER, await token())).resolves.toEqual({
      owner_id: OWNER,
      connected_at: '2026-11-22T10:05:00Z',
      property_ids: ['prp_1'],
      token_id: JTI,
    });
    expect(workflowCalls).toEqual([{ name: 'confirmOwnerConnect', args: [JTI, { channel: 'acme', ownerId: OWNER }] }]);
  });

  test('past the window an unconfirmed token is expired and a confirmed one used, without asking the workflow', async () => {
    const { deps, caller, record, token, workflowCalls, clock, db } = setUp();
    record();
    clock.advance(CONFIRMATION_WINDOW_SECONDS * 1000 + 1);
    expect(await refusal(confirmOwnerConnection(deps, caller, OWNER, await token()))).toBe(
      'owner_connect_token_expired',
    );
    db.tables.tokens[0]!.state = 'confirmed';
    expect(await refusal(confirmOwnerConnection(deps, caller, OWNER, await token()))).toBe('owner_connect_token_used');
    expect(workflowCalls).toEqual([]);
  });

  test('a token whose workflow has closed is refused as its record now says', async () => {
    const { deps, caller, record, token, db } = setUp({
      workflows: {
        confirmOwnerConnect: () => {
          db.tables.tokens[0]!.state = 'expired';
          return Promise.resolve({ closed: true as const });
        },
      },
    });
    record();
    expect(await refusal(confirmOwnerConnection(deps, caller, OWNER, await token()))).toBe(
      'owner_connect_token_expired',
    );
  });

  test('the token is checked before anything of the owner: a bad signature, another audience, a future iat', async () => {
    const { deps, caller, record, token, workflowCalls } = setUp();
    record();
    const good = await token();
    const [header, payload] = good.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(86)}`;
    expect(await refusal(confirmOwnerConnection(deps, caller, OWNER, forged))).toBe('invalid_owner_connect_token');
    const otherChannel = { ...caller, channelName: 'other' };
    expect(await refusal(confirmOwnerConnection(deps, otherChannel, OWNER, good))).toBe('invalid_owner_connect_token');
    const ahead = await token({
      iat: Math.floor(Date.parse(NOW) / 1000) + 120,
      exp: Math.floor(Date.parse(NOW) / 1000) + 400,
    });
    expect(await refusal(confirmOwnerConnection(deps, caller, OWNER, ahead))).toBe('invalid_owner_connect_token');
    expect(workflowCalls).toEqual([]);
  });

  test('an owner no longer distributed, or a token issued for another owner, is refused', async () => {
    const { deps, caller, record, token, db } = setUp();
    record(JTI, { ownerExternalId: 'own_01jz9999999999999999999999' });
    expect(await refusal(confirmOwnerConnection(deps, caller, OWNER, await token()))).toBe(
      'invalid_owner_connect_token',
    );
    db.tables.owners[0]!.status = 'withdrawn';
    expect(await refusal(confirmOwnerConnection(deps, caller, OWNER, await token()))).toBe('owner_not_distributed');
  });
});

describe("the token's workflow binds it", () => {
  test('the connection is made at the whole second, the view re-projected, the dispatcher woken', async () => {
    const { deps, record, db, clock, workflowCalls, channel } = setUp();
    record();
    clock.advance(1_500);
    await expect(bindOwnerConnection(deps, JTI)).resolves.toEqual({ connected_at: '2026-11-22T10:00:01Z' });
    expect(db.tables.connections).toEqual([
      { channelId: channel.id, ownerId: 'owner-1', jti: JTI, connectedAt: new Date('2026-11-22T10:00:01Z') },
    ]);
    expect(db.tables.tokens[0]).toMatchObject({ state: 'confirmed' });
    expect(db.tables.reprojected).toEqual([{ owners: ['owner-1'], channelId: channel.id }]);
    expect(workflowCalls.map((call) => call.name)).toEqual(['wakeDispatcher']);
  });

  test('binding again answers the same connection and writes nothing', async () => {
    const { deps, record, db, clock } = setUp();
    record();
    const first = await bindOwnerConnection(deps, JTI);
    clock.advance(60_000);
    await expect(bindOwnerConnection(deps, JTI)).resolves.toEqual(first);
    expect(db.tables.reprojected).toHaveLength(1);
  });

  test("a new token replaces the owner's connection: the earlier token is revoked and its workflow told", async () => {
    const { deps, record, db, workflowCalls } = setUp();
    const older = 'b'.repeat(32);
    record(older);
    record();
    await bindOwnerConnection(deps, older);
    await bindOwnerConnection(deps, JTI);
    expect(db.tables.connections.map((c) => c.jti)).toEqual([JTI]);
    expect(db.tables.tokens.map((t) => [t.jti, t.state])).toEqual([
      [older, 'revoked'],
      [JTI, 'confirmed'],
    ]);
    expect(workflowCalls.at(-1)).toEqual({ name: 'signalOwnerConnectionRevoked', args: [older] });
  });

  test('a revoked or expired token binds nothing, and nothing is written', async () => {
    const { deps, record, db } = setUp();
    record(JTI, { state: 'expired' });
    expect(await refusal(bindOwnerConnection(deps, JTI))).toBe('owner_connect_token_expired');
    expect(db.tables.connections).toEqual([]);
    expect(db.tables.reprojected).toEqual([]);
  });

  test('a window that closes unconfirmed expires a waiting token only', async () => {
    const { deps, record, db } = setUp();
    record();
    record('c'.repeat(32), { state: 'confirmed' });
    await expireOwnerConnectToken(deps, JTI);
    await expireOwnerConnectToken(deps, 'c'.repeat(32));
    expect(db.tables.tokens.map((t) => t.state)).toEqual(['expired', 'confirmed']);
  });
});

describe('a channel removes the connection', () => {
  test('the connection goes, its token is revoked for good, the view re-projected; a failed signal is only logged', async () => {
    const { deps, record, db, caller, logLines } = setUp({
      workflows: { signalOwnerConnectionRevoked: () => Promise.reject(new Error('Temporal unreachable')) },
    });
    record();
    await bindOwnerConnection(deps, JTI);
    await removeOwnerConnection(deps, caller, OWNER);
    expect(db.tables.connections).toEqual([]);
    expect(db.tables.tokens[0]!.state).toBe('revoked');
    expect(db.tables.reprojected).toHaveLength(2);
    expect(logLines.filter((line) => line.level === 'warn')).toHaveLength(1);
  });

  test('without a connection, or for an owner the channel does not know, nothing changes', async () => {
    const { deps, db, caller, workflowCalls } = setUp();
    await removeOwnerConnection(deps, caller, OWNER);
    await removeOwnerConnection(deps, caller, 'own_01jz9999999999999999999999');
    expect(db.tables.reprojected).toEqual([]);
    expect(workflowCalls).toEqual([]);
  });
});
