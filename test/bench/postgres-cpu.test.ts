import { describe, expect, test } from 'vitest';
import { postgresCpu, postgresCpuBetween } from '../../bench/postgres-cpu.ts';
import { freshDatabase } from '../support/database.ts';

// The benches' PostgreSQL CPU: read backend by backend, so that a pooled connection closing
// between two readings can no longer make the figure negative.

describe('PostgreSQL CPU between two readings', () => {
  test.each<[string, [number, number][], [number, number][], number]>([
    ['a backend in both counts its growth', [[1, 100]], [[1, 130]], 30],
    [
      'a backend started in between counts all it used',
      [[1, 100]],
      [
        [1, 100],
        [2, 40],
      ],
      40,
    ],
    // The old figure, after's total minus before's, was 10 - 500 here.
    [
      'a backend that ended in between counts nothing, never below zero',
      [
        [1, 500],
        [2, 0],
      ],
      [[2, 10]],
      10,
    ],
    ['a counter that went back (a reused pid) counts nothing', [[1, 500]], [[1, 20]], 0],
  ])('%s', (_case, before, after, spent) => {
    expect(postgresCpuBetween(new Map(before), new Map(after))).toBe(spent);
  });

  test('no reading, no figure', () => {
    expect(postgresCpuBetween(null, new Map())).toBeNull();
  });

  test('a reading holds the CPU of this database’s backends, a work-heavy query included', async () => {
    const { orm } = await freshDatabase();
    try {
      const query = (text: string) => orm.em.getConnection().execute<{ pid: number }[]>(text);
      const before = await postgresCpu(query);
      expect(before).not.toBeNull();
      const [backend] = await query('select pg_backend_pid() as pid');
      expect(before!.has(backend!.pid)).toBe(true);
      await orm.em.getConnection().execute('select count(*) from generate_series(1, 3000000)');
      const after = await postgresCpu(query);
      expect(postgresCpuBetween(before, after)).toBeGreaterThan(0);
    } finally {
      await orm.close();
    }
  });
});
