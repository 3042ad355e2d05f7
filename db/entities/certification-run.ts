import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A sandbox certification run (workflows/certification.ts) and its report: one row per rule, the
 * step under way, and while the run waits for it the owner-connect hand-off. `hand_off` holds the
 * token itself: it is short-lived (its confirmation window), its `aud` is the run's channel, and
 * only that channel is shown it (`GET /sandbox/certifications/{id}`), so keeping it leaks nothing
 * the channel was not meant to have; the run sets it to null once it stops waiting. Kept: a
 * report is not pruned.
 */
export const CertificationRunSchema = defineEntity({
  name: 'CertificationRun',
  tableName: 'certification_run',
  properties: {
    id: p.string().length(40).primary(),
    channelId: p.uuid(),
    webhookId: p.string().length(40),
    state: p.string().length(10),
    step: p.string().length(500).nullable(),
    handOff: p.json<Record<string, unknown>>().nullable(),
    rows: p.json<Record<string, unknown>[]>(),
    startedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
  },
  indexes: [
    // A channel's runs newest first.
    { name: 'certification_run_channel', properties: ['channelId', 'startedAt'] },
    // Every run newest first, for the operator's list.
    { name: 'certification_run_started', properties: ['startedAt'] },
    // One running run per channel: a second start conflicts here, whatever process it came from.
    {
      name: 'certification_run_running',
      expression: `create unique index "certification_run_running" on "certification_run" ("channel_id") where "state" = 'running'`,
    },
  ],
});

export type CertificationRunEntity = InferEntity<typeof CertificationRunSchema>;
