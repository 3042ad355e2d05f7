import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { createChannel } from '../../admin/channels.ts';
import type { AdminContext } from '../../admin/context.ts';
import { issueKey } from '../../admin/keys.ts';
import { loadConfig } from '../../app/config.ts';
import type { Clock } from '../../domain/clock.ts';
import { createLogger } from '../../infra/logger.ts';
import type { Scope } from '../../domain/scopes.ts';
import { singleKeyRing } from '../../domain/key-ring.ts';
import { sha256 } from '../../infra/secrets.ts';
import { serviceDeps } from '../../services/deps.ts';
import { TEST_PLATFORM_TOKEN, TEST_SERVER_SECRET } from './api.ts';

export function adminContext(
  orm: MikroORM,
  temporal: Client,
  clock: Clock,
  taskQueue = 'distribution-test',
): AdminContext {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    TEMPORAL_TASK_QUEUE: taskQueue,
    SERVER_SECRET: TEST_SERVER_SECRET,
    PLATFORM_TOKEN: TEST_PLATFORM_TOKEN,
  });
  const secrets = {
    ring: singleKeyRing(new TextEncoder().encode(TEST_SERVER_SECRET)),
    platformTokenHash: sha256(TEST_PLATFORM_TOKEN),
  };
  return serviceDeps({ orm, temporal, clock, config, log: createLogger('silent'), secrets });
}

let counter = 0;
export function uniqueChannelName(prefix = 'ch'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

/** A fresh channel and one key on it. */
export async function channelWithKey(
  ctx: AdminContext,
  options: { scopes?: Scope[]; rateLimit?: number; expiresAt?: string } = {},
) {
  const name = uniqueChannelName();
  const channel = await createChannel(ctx, {
    name,
    rateLimit: options.rateLimit ?? 600,
    redirectUrl: 'https://partner.example/connect',
  });
  const key = await issueKey(ctx, {
    channel: name,
    scopes: (options.scopes ?? ['read:catalog']).join(','),
    ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}),
  });
  return { channel, key };
}

/** The same text with its last character changed: a key that fails its checksum, whatever it ended with. */
export function otherLastCharacter(text: string): string {
  return `${text.slice(0, -1)}${text.endsWith('x') ? 'y' : 'x'}`;
}
