import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { systemClock } from '../../domain/clock.ts';
import { createLogger } from '../../infra/logger.ts';
import { HOUSEKEEPING_EVERY } from '../../services/housekeeping-schedule.ts';
import { runHousekeeping } from '../../services/housekeeping.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';

// The deployment's housekeeping runs as one schedule, on the run's dev server with the service's
// worker: one pass at a time for the whole deployment, whatever the number of API processes.

let orm: MikroORM;
let ctx: AdminContext;
let temporal: Client;
let taskQueue: string;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: systemClock, taskQueue: 'housekeeping', worker: true });
  ({ orm, ctx, temporal } = bed);
  taskQueue = bed.taskQueue!;
});

const counters = async () =>
  (
    await orm.em.fork().execute<{ n: string }[]>("select count(*) as n from request_counter where bucket = 'hk-test'")
  )[0]!.n;

describe('housekeeping', () => {
  test('the housekeeping schedule is one, every minute, never overlapping itself; a pass it starts drops what is past its window', async () => {
    await ctx.workflows.ensureHousekeepingSchedule();
    // A second call (another worker starting) leaves the one schedule as it is.
    await ctx.workflows.ensureHousekeepingSchedule();
    const handle = temporal.schedule.getHandle(workflowIds.housekeeping(taskQueue));
    const description = await handle.describe();
    expect(description.policies.overlap).toBe('SKIP');
    expect(description.spec.intervals).toMatchObject([{ every: 60_000 }]);
    expect(HOUSEKEEPING_EVERY).toBe('1 minute');
    expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'housekeeping', taskQueue });

    // A request counter two hours old: past its window.
    await orm.em
      .fork()
      .execute(
        "insert into request_counter (bucket, window_start, count) values ('hk-test', now() - interval '2 hours', 1)",
      );
    expect(await counters()).toBe('1');
    await handle.trigger();
    const deadline = Date.now() + 30_000;
    while ((await counters()) !== '0') {
      if (Date.now() > deadline) throw new Error('the triggered pass did not drop the old counter within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await handle.delete();
  });

  test('a step that fails is logged at error level by its name and class, and the others still run', async () => {
    const lines: string[] = [];
    const log = createLogger('info', {}, { write: (line: string) => void lines.push(line) });
    const ran: string[] = [];
    const failed = await runHousekeeping({ orm, clock: systemClock, log, secrets: ctx.secrets }, [
      { name: 'first', run: () => Promise.resolve(ran.push('first')) },
      {
        name: 'broken',
        run: () => orm.em.fork().execute('select * from no_such_table where secret = ?', ['hunter2']),
      },
      { name: 'last', run: () => Promise.resolve(ran.push('last')) },
    ]);
    expect(failed).toEqual(['broken']);
    expect(ran).toEqual(['first', 'last']);
    const [line] = lines.map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(line).toMatchObject({ level: 'error', message: 'housekeeping step failed', step: 'broken', error: '42P01' });
    expect(lines.join('\n')).not.toContain('hunter2');
  });
});
