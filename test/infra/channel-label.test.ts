import { expect, test } from 'vitest';
import { channelLabel, MAX_CHANNEL_LABELS, OTHER_CHANNELS } from '../../infra/metrics.ts';

// The bound on the `channel` label of the attempt counter: a process names at most
// MAX_CHANNEL_LABELS channels, and counts any further one under OTHER_CHANNELS.

test('a process names its first MAX_CHANNEL_LABELS channels, keeps their names, and labels every further one _other', () => {
  const names = Array.from({ length: MAX_CHANNEL_LABELS + 5 }, (_, i) => `label-bound-${i}`);
  const labels = names.map(channelLabel);
  expect(labels.slice(0, MAX_CHANNEL_LABELS)).toEqual(names.slice(0, MAX_CHANNEL_LABELS));
  expect(labels.slice(MAX_CHANNEL_LABELS)).toEqual(Array(5).fill(OTHER_CHANNELS));
  // A channel named before the bound was reached keeps its name.
  expect(channelLabel(names[0]!)).toBe(names[0]);
  // `_` is not allowed in a channel's name (admin/channels.ts), so the label cannot be one.
  expect(OTHER_CHANNELS).not.toMatch(/^[a-z][a-z0-9-]{1,62}$/);
});
