import { beforeAll, describe, expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

const BASE = '/api/v1/distribution';
let api: TestApi;
let key: string;

beforeAll(async () => {
  const bed = await apiTestBed();
  api = bed.api;
  key = (await bed.channel({ scopes: ['read:catalog', 'read:ari'] })).key.key;
});

const OLD = '2026-09-01T00:00:00Z';

describe('a refusal of bad input comes before the sync window', () => {
  test.each(['/locations', '/owners', '/properties', '/amenities', '/availability'])(
    '%s with an old updated_since and a bad cursor: 400 invalid_cursor, not 410',
    async (path) => {
      for (const cursor of ['garbage', 'AAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA']) {
        const url = `${BASE}${path}?updated_since=${OLD}&cursor=${cursor}`;
        const res = await api.call('GET', url, { key });
        expectProblem(res, 400, 'invalid_cursor');
        expectMatchesDescription('GET', url, res);
      }
    },
  );

  test.each(['/locations', '/amenities', '/availability'])(
    '%s with an old updated_since and nothing else wrong: 410 sync_window_expired',
    async (path) => {
      expectProblem(await api.call('GET', `${BASE}${path}?updated_since=${OLD}`, { key }), 410, 'sync_window_expired');
      expect((await api.call('GET', `${BASE}${path}?updated_since=2026-11-01T00:00:00Z`, { key })).status).toBe(200);
    },
  );
});
