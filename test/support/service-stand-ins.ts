import { loadConfig } from '../../app/config.ts';
import type { ApiKey, KeyWithChannel } from '../../db/api-keys.ts';
import type { Channel } from '../../db/channels.ts';
import type { SigningKey } from '../../db/owner-connect-keys.ts';
import type { TokenRecord } from '../../db/owner-connect.ts';
import type { StoredDelivery } from '../../db/webhook-deliveries.ts';
import type { StoredEndpoint } from '../../db/webhook-endpoints.ts';
import { singleKeyRing } from '../../domain/key-ring.ts';
import type { Logger } from '../../infra/logger.ts';
import type { Mail, Mailer } from '../../infra/mailer.ts';
import { sha256 } from '../../infra/secrets.ts';
import type { WebhookResponse } from '../../infra/webhook-http.ts';
import type { WebhookSender } from '../../infra/webhook-sender.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import type { ServiceStores } from '../../services/stores/index.ts';
import type { KeyOperations } from '../../services/stores/keys.ts';
import type { AttemptOperations, EndpointOperations } from '../../services/stores/webhooks.ts';
import type { ChannelOperations } from '../../services/stores/channels.ts';
import type { ConnectionOperations } from '../../services/stores/owner-connect.ts';
import type { Store } from '../../services/stores/bind.ts';
import type { WorkflowClient } from '../../services/workflow-client.ts';
import { TestClock } from './clock.ts';

// Services without PostgreSQL, Temporal, SMTP or receivers: each port of services/stores/ kept in
// memory, and the workflow client, the mailer, the ping's sender and the log recording their calls.
// A test builds `serviceStandIns()`, seeds `db`, calls the service, and reads what was recorded.

export { TestClock };

/** A workflow client method called, in order, with its arguments. */
export interface WorkflowCall {
  name: keyof WorkflowClient;
  args: unknown[];
}

/**
 * A workflow client that records every call and answers `undefined`, or what `answers` gives
 * (a function that throws stands for Temporal refusing or unreachable).
 */
export function recordingWorkflows(answers: Partial<WorkflowClient> = {}): {
  workflows: WorkflowClient;
  calls: WorkflowCall[];
} {
  const calls: WorkflowCall[] = [];
  const workflows = new Proxy({} as WorkflowClient, {
    get(_target, name: string) {
      return (...args: unknown[]) => {
        calls.push({ name: name as keyof WorkflowClient, args });
        const answer = answers[name as keyof WorkflowClient] as ((...a: unknown[]) => unknown) | undefined;
        return Promise.resolve().then(() => answer?.(...args));
      };
    },
  });
  return { workflows, calls };
}

/** A mailer that records what it is given; `unconfigured` answers as with no SMTP, `failWith` as a refusing server. */
export function recordingMailer(options: { unconfigured?: boolean; failWith?: Error } = {}) {
  const sent: Mail[] = [];
  let closed = 0;
  const mailer: Mailer = {
    send(mail) {
      if (options.failWith) return Promise.reject(options.failWith);
      if (options.unconfigured) return Promise.resolve({ sent: false, messageId: null });
      sent.push(mail);
      return Promise.resolve({ sent: true, messageId: `<${sent.length}@stand-in>` });
    },
    close() {
      closed += 1;
    },
  };
  return { mailer, sent, closes: () => closed };
}

/** A log that keeps its lines, so that a test can see what an operator would be told. */
export function recordingLog() {
  const lines: { level: keyof Logger; message: string; fields: Record<string, unknown> }[] = [];
  const at =
    (level: keyof Logger) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, message, fields });
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { log, lines };
}

/** A ping sender answering `statusCode` (null: no answer) and recording the endpoints pinged. */
export function recordingSender(statusCode: number | null = 200) {
  const sent: { endpointId: string; eventId: string }[] = [];
  const answer = { statusCode };
  const sender: WebhookSender = {
    send(endpoint, event): Promise<WebhookResponse> {
      sent.push({ endpointId: endpoint.id, eventId: event.id });
      const ok = answer.statusCode !== null && answer.statusCode >= 200 && answer.statusCode < 300;
      return Promise.resolve({
        statusCode: answer.statusCode,
        durationMs: 5,
        error: ok ? null : answer.statusCode === null ? 'timeout' : 'http_status',
        detail: ok ? null : 'stand-in',
        excerpt: null,
      });
    },
  };
  return { sender, sent, answer };
}

/** A port's operations answering at once: the in-memory tables need no waiting. */
type Immediate<Ops> = {
  [K in keyof Ops]: Ops[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};

/** The port itself: each answer a promise, and a throw a rejection, as from the database. */
function promised<Ops>(immediate: Immediate<Ops>): Ops {
  return Object.fromEntries(
    Object.entries(immediate).map(([name, op]) => [
      name,
      (...args: unknown[]) => Promise.resolve().then(() => (op as (...a: unknown[]) => unknown)(...args)),
    ]),
  ) as Ops;
}

interface Tables {
  channels: Channel[];
  keys: ApiKey[];
  endpoints: (StoredEndpoint & { resumeAfter: number })[];
  deliveries: StoredDelivery[];
  attempts: { deliveryId: string; number: number; statusCode: number | null; error: string | null }[];
  dispatchStarted: string[];
  /** The channels' log ends, which a registered or enabled endpoint resumes after. */
  logEnd: Record<string, number>;
  signingKeys: SigningKey[];
  /** Owners in the channels' views: the `own_` id a channel knows, the owner's id, its status there. */
  owners: { channelId: string; externalId: string; ownerId: string; status: string }[];
  tokens: TokenRecord[];
  connections: { channelId: string; ownerId: string; jti: string; connectedAt: Date }[];
  /** Each re-projection asked for, in order: its owners and channel. */
  reprojected: { owners: string[]; channelId: string | undefined }[];
}

/**
 * The tables the ported services read and write, as plain arrays, with each port's operations
 * doing what its statement in db/ does. A transaction works on a copy and keeps it only when its
 * work returns: a throw rolls back, as PostgreSQL would.
 */
export class InMemoryDatabase {
  tables: Tables = {
    channels: [],
    keys: [],
    endpoints: [],
    deliveries: [],
    attempts: [],
    dispatchStarted: [],
    logEnd: {},
    signingKeys: [],
    owners: [],
    tokens: [],
    connections: [],
    reprojected: [],
  };
  /** The locks taken, in order (`channel:<id>`, `endpoint:<id>`): what a transaction serialises on. */
  locks: string[] = [];

  channel(fields: Partial<Channel> & { name: string }): Channel {
    const channel: Channel = {
      id: `chn-${this.tables.channels.length + 1}`,
      status: 'active',
      rateLimitPerMinute: 600,
      redirectUrl: null,
      technicalContactEmail: null,
      createdAt: new Date('2026-01-01T00:00:00Z'),
      suspendedAt: null,
      webhooksSuspendedAt: null,
      ...fields,
    };
    this.tables.channels.push(channel);
    return channel;
  }

  delivery(fields: Partial<StoredDelivery> & { id: string; endpointId: string }): StoredDelivery {
    const delivery: StoredDelivery = {
      eventId: `evt-${this.tables.deliveries.length + 1}`,
      eventType: 'property.updated',
      payload: '{}',
      state: 'pending',
      attempts: 0,
      createdAt: new Date('2026-01-01T00:00:00Z'),
      lastAttemptAt: null,
      nextAttemptAt: null,
      completedAt: null,
      ...fields,
    };
    this.tables.deliveries.push(delivery);
    return delivery;
  }

  endpoint(id: string): StoredEndpoint & { resumeAfter: number } {
    const found = this.tables.endpoints.find((endpoint) => endpoint.id === id);
    if (!found) throw new Error(`no endpoint ${id} in the stand-in database`);
    return found;
  }

  stores(): ServiceStores {
    return {
      channels: this.store(() => this.channelOperations()),
      keys: this.store(() => this.keyOperations()),
      endpoints: this.store(() => this.endpointOperations()),
      attempts: this.store(() => this.attemptOperations()),
      ownerConnections: this.store(() => this.connectionOperations()),
    };
  }

  private store<Ops extends Record<string, (...args: never[]) => Promise<unknown>>>(
    operations: () => Immediate<Ops>,
  ): Store<Ops> {
    const ops = promised(operations());
    return Object.assign(ops, {
      transaction: async <T>(work: (tx: Ops) => Promise<T>): Promise<T> => {
        const before = structuredClone(this.tables);
        try {
          return await work(ops);
        } catch (error) {
          this.tables = before;
          throw error;
        }
      },
    });
  }

  private findChannel(name: string) {
    return this.tables.channels.find((channel) => channel.name === name) ?? null;
  }

  private channelOperations(): Immediate<ChannelOperations> {
    return {
      channelNameTaken: (name) => this.findChannel(name) !== null,
      insertChannel: (channel) => this.channel({ ...channel, name: channel.name }),
      changeChannel: (name, change) => this.changeChannel(name, change),
      listChannels: () => [...this.tables.channels].sort((a, b) => a.name.localeCompare(b.name)),
    };
  }

  private changeChannel(name: string, change: Partial<Channel>): Channel | null {
    const channel = this.findChannel(name);
    if (!channel) return null;
    for (const [field, value] of Object.entries(change))
      if (value !== undefined) Object.assign(channel, { [field]: value });
    return { ...channel };
  }

  private keyOperations(): Immediate<KeyOperations> {
    return {
      findChannelByName: (name, options = {}) => {
        const channel = this.findChannel(name);
        if (channel && options.lock) this.locks.push(`channel:${channel.id}`);
        return channel && { ...channel };
      },
      countLiveKeys: (channelId, environment, now) =>
        this.tables.keys.filter(
          (key) =>
            key.channelId === channelId &&
            key.environment === environment &&
            !key.revokedAt &&
            !key.expiredAt &&
            (key.expiresAt === null || key.expiresAt > now),
        ).length,
      insertApiKey: (key) => {
        const added: ApiKey = { ...key, expiredAt: null, revokedAt: null, lastUsedAt: null };
        this.tables.keys.push(added);
        return { ...added };
      },
      revokeApiKey: (id, now) => {
        const key = this.tables.keys.find((candidate) => candidate.id === id);
        if (!key) return null;
        key.revokedAt ??= now;
        const channel = this.tables.channels.find((candidate) => candidate.id === key.channelId)!;
        return { ...key, channel: { ...channel } } satisfies KeyWithChannel;
      },
      listApiKeys: (channelId) =>
        this.tables.keys
          .filter((key) => key.channelId === channelId)
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()),
    };
  }

  private live(channelId: string) {
    return this.tables.endpoints.filter(
      (endpoint) => endpoint.channelId === channelId && endpoint.status !== 'deleted',
    );
  }

  private endpointOperations(): Immediate<EndpointOperations> {
    const copy = ({ resumeAfter: _, ...endpoint }: StoredEndpoint & { resumeAfter: number }): StoredEndpoint => ({
      ...endpoint,
    });
    return {
      findEndpoint: (channelId, id, options = {}) => {
        const found = this.live(channelId).find((endpoint) => endpoint.id === id);
        if (found && options.lock) this.locks.push(`endpoint:${id}`);
        return found ? copy(found) : null;
      },
      listEndpoints: (channelId) => this.live(channelId).map(copy),
      lockChannelEndpoints: (channelId) => void this.locks.push(`channel:${channelId}`),
      insertEndpoint: ({ sealedSecret, now, events, ...endpoint }) =>
        void this.tables.endpoints.push({
          ...endpoint,
          events: [...events],
          status: 'active',
          suspendedReason: null,
          secret: sealedSecret,
          previousSecret: null,
          previousSecretExpiresAt: null,
          secretGeneration: 1,
          createdAt: now,
          updatedAt: now,
          resumeAfter: this.tables.logEnd[endpoint.channelId] ?? 0,
        }),
      startDispatch: (channelId) => {
        if (!this.tables.dispatchStarted.includes(channelId)) this.tables.dispatchStarted.push(channelId);
      },
      markEndpointDeleted: (id, now) =>
        void Object.assign(this.endpoint(id), {
          status: 'deleted',
          secret: null,
          previousSecret: null,
          previousSecretExpiresAt: null,
          updatedAt: now,
        }),
      reactivateEndpoint: (channelId, id, now) => {
        const endpoint = this.endpoint(id);
        if (endpoint.status !== 'inactive') return;
        const resumeAfter = this.tables.logEnd[channelId] ?? 0;
        Object.assign(endpoint, { status: 'active', suspendedReason: null, resumeAfter, updatedAt: now });
      },
      replaceSecret: (id, secrets, now) => {
        const endpoint = this.endpoint(id);
        Object.assign(endpoint, {
          secret: secrets.sealed,
          previousSecret: secrets.previous,
          previousSecretExpiresAt: secrets.previousExpiresAt,
          secretGeneration: endpoint.secretGeneration + 1,
          updatedAt: now,
        });
      },
      cancelPendingDeliveryRows: (pending, now) => {
        const endpointIds =
          'channelId' in pending
            ? this.tables.endpoints.filter((e) => e.channelId === pending.channelId).map((e) => e.id)
            : [pending.endpointId];
        const except = 'except' in pending ? pending.except : undefined;
        const cancelled = this.tables.deliveries.filter(
          (d) => d.state === 'pending' && endpointIds.includes(d.endpointId) && d.id !== except,
        );
        for (const delivery of cancelled)
          Object.assign(delivery, { state: 'cancelled', completedAt: now, nextAttemptAt: null });
        return cancelled.map((d) => ({ endpointId: d.endpointId, eventId: d.eventId }));
      },
      changeChannel: (name, change) => this.changeChannel(name, change),
    };
  }

  private attemptOperations(): Immediate<AttemptOperations> {
    return {
      attemptContext: (deliveryId) => {
        const delivery = this.tables.deliveries.find((d) => d.id === deliveryId);
        if (!delivery) return null;
        const stored = this.tables.endpoints.find((e) => e.id === delivery.endpointId) ?? null;
        const channel = stored && this.tables.channels.find((c) => c.id === stored.channelId);
        const { resumeAfter: _, ...endpoint } = stored ?? { resumeAfter: 0 };
        return {
          delivery: { ...delivery },
          endpoint: stored ? (endpoint as StoredEndpoint) : null,
          channel: channel
            ? { name: channel.name, status: channel.status, webhooksSuspendedAt: channel.webhooksSuspendedAt }
            : null,
          eventOccurredAt: null,
        };
      },
      finishDelivery: (deliveryId, state, now) => {
        const delivery = this.tables.deliveries.find((d) => d.id === deliveryId && d.state === 'pending');
        if (delivery) Object.assign(delivery, { state, completedAt: now, nextAttemptAt: null });
      },
      recordAttempt: (attempt) => {
        if (!this.tables.attempts.some((a) => a.deliveryId === attempt.deliveryId && a.number === attempt.number))
          this.tables.attempts.push({
            deliveryId: attempt.deliveryId,
            number: attempt.number,
            statusCode: attempt.statusCode,
            error: attempt.error,
          });
        const delivery = this.tables.deliveries.find((d) => d.id === attempt.deliveryId)!;
        Object.assign(delivery, {
          attempts: attempt.number,
          lastAttemptAt: attempt.attemptedAt,
          nextAttemptAt: null,
          state: attempt.deliveredAt ? 'delivered' : 'pending',
          completedAt: attempt.deliveredAt,
        });
      },
      suspendEndpoint: (id, reason, now) => {
        const endpoint = this.tables.endpoints.find((e) => e.id === id && e.status === 'active');
        if (!endpoint) return false;
        Object.assign(endpoint, { status: 'inactive', suspendedReason: reason, updatedAt: now });
        return true;
      },
      endpointContact: (id) => {
        const endpoint = this.tables.endpoints.find((e) => e.id === id);
        const channel = endpoint && this.tables.channels.find((c) => c.id === endpoint.channelId);
        return endpoint && channel
          ? { url: endpoint.url, channel: channel.name, email: channel.technicalContactEmail }
          : null;
      },
    };
  }

  private connectionOperations(): Immediate<ConnectionOperations> {
    const token = (jti: string) => this.tables.tokens.find((t) => t.jti === jti);
    const connection = (channelId: string, ownerId: string) =>
      this.tables.connections.find((c) => c.channelId === channelId && c.ownerId === ownerId);
    return {
      keyByKid: (kid) => this.tables.signingKeys.find((key) => key.kid === kid) ?? null,
      ownerOfExternalId: (channelId, externalId) => {
        const owner = this.tables.owners.find((o) => o.channelId === channelId && o.externalId === externalId);
        return owner ? { ownerId: owner.ownerId, status: owner.status } : null;
      },
      findToken: (jti, options = {}) => {
        if (options.lock) this.locks.push(`token:${jti}`);
        const found = token(jti);
        return found ? { ...found } : null;
      },
      expireToken: (jti) => {
        const found = token(jti);
        if (found?.state === 'waiting') found.state = 'expired';
      },
      lockConnection: (channelId, ownerId) => {
        this.locks.push(`connection:${channelId}:${ownerId}`);
        const found = connection(channelId, ownerId);
        return found ? { jti: found.jti, connectedAt: found.connectedAt } : null;
      },
      putConnection: (channelId, ownerId, jti, connectedAt) => {
        const found = connection(channelId, ownerId);
        if (found) Object.assign(found, { jti, connectedAt });
        else this.tables.connections.push({ channelId, ownerId, jti, connectedAt });
      },
      deleteConnection: (channelId, ownerId) => {
        this.tables.connections = this.tables.connections.filter((c) => c !== connection(channelId, ownerId));
      },
      setTokenState: (jti, state, connectedAt) => {
        const found = token(jti);
        if (found) Object.assign(found, { state, connectedAt: connectedAt ?? found.connectedAt });
      },
      reproject: (affected) => {
        this.tables.reprojected.push({ owners: [...(affected.owners ?? [])], channelId: affected.channelId });
        return 1;
      },
    };
  }
}

const SERVER_SECRET = 'stand-in-server-secret-of-at-least-32-characters';
const PLATFORM_TOKEN = 'stand-in-platform-token-of-at-least-32-characters';
/** The configuration from these settings alone, whatever the test process's environment says. */
const CONFIG = loadConfig({ LOG_LEVEL: 'silent', SERVER_SECRET, PLATFORM_TOKEN });

/**
 * Every dependency a ported service takes, none of them a server: `orm` is left out, so a service
 * that still reached the database directly would not compile against these.
 */
export function serviceStandIns(options: { now?: string; workflows?: Partial<WorkflowClient> } = {}) {
  const db = new InMemoryDatabase();
  const clock = new TestClock(options.now ?? '2026-11-22T10:00:00Z');
  const { workflows, calls: workflowCalls } = recordingWorkflows(options.workflows);
  const mail = recordingMailer();
  const { log, lines: logLines } = recordingLog();
  const ping = recordingSender(200);
  const deps = {
    stores: db.stores(),
    workflows,
    clock,
    log,
    mailer: mail.mailer,
    pingSender: ping.sender,
    config: CONFIG,
    secrets: {
      ring: singleKeyRing(new TextEncoder().encode(SERVER_SECRET)),
      platformTokenHash: sha256(PLATFORM_TOKEN),
    },
  } satisfies Omit<ServiceDeps, 'orm'>;
  return { deps, db, clock, workflowCalls, mail, logLines, ping };
}
