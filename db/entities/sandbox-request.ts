import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * One request a sandbox key made, as the channel reads it back (`GET /sandbox/requests`): never a
 * header or a body, the query's values only where the operation declares them. Kept a day
 * (domain/sandbox/request-log.ts), pruned by the housekeeping pass in bounded batches.
 */
export const SandboxRequestSchema = defineEntity({
  name: 'SandboxRequest',
  tableName: 'sandbox_request',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    channelId: p.uuid(),
    keyId: p.string().length(40),
    requestId: p.string().length(64),
    method: p.string().length(10),
    path: p.string().length(1024),
    status: p.smallint(),
    code: p.string().length(60).nullable(),
    units: p.integer(),
    durationMs: p.integer(),
    receivedAt: p.datetime(),
  },
  indexes: [
    // A channel's requests newest first by (received_at, id): the page's position (db/sandbox-requests.ts).
    { name: 'sandbox_request_page', properties: ['channelId', 'receivedAt', 'id'] },
    // The oldest first, for the housekeeping's bounded deletes.
    { name: 'sandbox_request_received', properties: ['receivedAt'] },
  ],
});

export type SandboxRequest = InferEntity<typeof SandboxRequestSchema>;
