import { describe, expect, test } from 'vitest';
import { hashApiKey } from '../../db/api-keys.ts';
import { issueKey, MAX_LIVE_KEYS, revokeKey, revokeLeakedKey } from '../../services/keys.ts';
import { Refusal } from '../../services/refusal.ts';
import { recordingMailer, serviceStandIns } from '../support/service-stand-ins.ts';

// services/keys.ts with its port in memory, the workflow client and the mailer recording: the key
// rules of docs/contract.md#keys, each read in a few lines.

const DAY = 86_400_000;

function setUp(options: Parameters<typeof serviceStandIns>[0] = {}) {
  const standIns = serviceStandIns(options);
  const channel = standIns.db.channel({ name: 'acme', technicalContactEmail: 'ops@acme.example' });
  const issue = (expiresAt: Date | null = null) =>
    issueKey(standIns.deps, { channel: 'acme', scopes: ['read:catalog'], expiresAt });
  return { ...standIns, channel, issue };
}

describe('issuing a key', () => {
  test('the secret is answered once; only its hash and last four characters are stored', async () => {
    const { issue, db } = setUp();
    const { secret, key } = await issue();
    expect(db.tables.keys).toEqual([key]);
    expect(key.secretHash).toBe(hashApiKey(secret));
    expect(key.last4).toBe(secret.slice(-4));
    expect(JSON.stringify(db.tables.keys)).not.toContain(secret);
  });

  test("the key's lifecycle workflow is started with its expiry, under the channel's lock", async () => {
    const { issue, clock, workflowCalls, db, channel } = setUp();
    const expiresAt = new Date(clock.now().getTime() + 30 * DAY);
    const { key } = await issue(expiresAt);
    expect(db.locks).toEqual([`channel:${channel.id}`]);
    expect(workflowCalls).toEqual([
      { name: 'startApiKeyLifecycle', args: [{ keyId: key.id, expiresAt: expiresAt.toISOString() }] },
    ]);
  });

  test('when the workflow cannot be started the key is not kept', async () => {
    const { issue, db } = setUp({
      workflows: { startApiKeyLifecycle: () => Promise.reject(new Error('no Temporal')) },
    });
    await expect(issue()).rejects.toThrow('no Temporal');
    expect(db.tables.keys).toEqual([]);
  });

  test('an expiry that is not in the future is refused before anything is written or started', async () => {
    const { issue, clock, db, workflowCalls } = setUp();
    await expect(issue(clock.now())).rejects.toBeInstanceOf(Refusal);
    expect(db.tables.keys).toEqual([]);
    expect(workflowCalls).toEqual([]);
  });

  test(`a channel holds at most ${MAX_LIVE_KEYS} live keys; a revoked or expired one does not count`, async () => {
    const { issue, deps, db, clock } = setUp();
    const first = await issue(new Date(clock.now().getTime() + DAY));
    for (let i = 1; i < MAX_LIVE_KEYS; i += 1) await issue();
    await expect(issue()).rejects.toThrow(`already holds ${MAX_LIVE_KEYS} keys`);
    expect(db.tables.keys).toHaveLength(MAX_LIVE_KEYS);
    clock.advance(DAY);
    await expect(issue()).resolves.toMatchObject({ key: { channelId: first.key.channelId } });
    await revokeKey(deps, first.key.id);
    await expect(issue()).rejects.toBeInstanceOf(Refusal);
  });

  test('an unknown channel is refused', async () => {
    const { deps } = setUp();
    await expect(issueKey(deps, { channel: 'nobody', scopes: [], expiresAt: null })).rejects.toThrow(
      'no channel named "nobody"',
    );
  });
});

describe('revoking a key', () => {
  test('the key is revoked at once, then its lifecycle workflow is signalled; again, it keeps its first instant', async () => {
    const { issue, deps, clock, workflowCalls } = setUp();
    const { key } = await issue();
    const revokedAt = clock.now();
    await expect(revokeKey(deps, key.id)).resolves.toMatchObject({ revokedAt });
    clock.advance(60_000);
    await expect(revokeKey(deps, key.id)).resolves.toMatchObject({ revokedAt });
    expect(workflowCalls.slice(1)).toEqual([
      { name: 'signalApiKeyRevoked', args: [key.id] },
      { name: 'signalApiKeyRevoked', args: [key.id] },
    ]);
  });

  test('an unknown key is refused and nothing is signalled', async () => {
    const { deps, workflowCalls } = setUp();
    await expect(revokeKey(deps, 'key_nope')).rejects.toBeInstanceOf(Refusal);
    expect(workflowCalls).toEqual([]);
  });
});

describe('a leaked key', () => {
  test("is revoked, and the channel's technical contact is e-mailed its last four characters, never the key", async () => {
    const { issue, deps, mail, db, workflowCalls } = setUp();
    const { key, secret } = await issue();
    const { notice } = await revokeLeakedKey(deps, key.id);
    expect(notice).toEqual({ to: 'ops@acme.example', sent: true, error: null });
    expect(db.tables.keys[0]!.revokedAt).not.toBeNull();
    expect(mail.sent).toHaveLength(1);
    expect(mail.sent[0]!.to).toBe('ops@acme.example');
    expect(mail.sent[0]!.text).toContain(`...${key.last4}`);
    expect(JSON.stringify(mail.sent)).not.toContain(secret);
    expect(workflowCalls.at(-1)).toEqual({ name: 'signalApiKeyRevoked', args: [key.id] });
    // The mailer is the process's: it is closed when the process stops, not after a message.
    expect(mail.closes()).toBe(0);
  });

  test('stays revoked when the mail fails; the notice says why', async () => {
    const standIns = setUp();
    const { key } = await standIns.issue();
    const refusing = recordingMailer({ failWith: new Error('550 mailbox unavailable') });
    const { key: revoked, notice } = await revokeLeakedKey({ ...standIns.deps, mailer: refusing.mailer }, key.id);
    expect(revoked.revokedAt).not.toBeNull();
    expect(notice).toEqual({ to: 'ops@acme.example', sent: false, error: '550 mailbox unavailable' });
    expect(standIns.workflowCalls.at(-1)).toEqual({ name: 'signalApiKeyRevoked', args: [key.id] });
  });

  test('without SMTP, or without a technical contact, the key is revoked and the notice says nobody was told', async () => {
    const standIns = setUp();
    const { key } = await standIns.issue();
    const unconfigured = recordingMailer({ unconfigured: true });
    const first = await revokeLeakedKey({ ...standIns.deps, mailer: unconfigured.mailer }, key.id);
    expect(first.notice).toEqual({
      to: 'ops@acme.example',
      sent: false,
      error: 'no SMTP server is configured (SMTP_URL)',
    });
    standIns.channel.technicalContactEmail = null;
    const second = await revokeLeakedKey(standIns.deps, key.id);
    expect(second.key.revokedAt).not.toBeNull();
    expect(second.notice).toMatchObject({ to: null, sent: false });
    expect(standIns.mail.sent).toEqual([]);
  });
});
