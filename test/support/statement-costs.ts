import type { MikroORM } from '@mikro-orm/postgresql';
import { vi } from 'vitest';

/**
 * What the service's statements cost, measured by PostgreSQL: the statements a piece of work
 * sends are recorded (text and values, as sent through the ORM's connection), then each read is
 * run again under `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)`.
 */

export interface Sent {
  sql: string;
  params: readonly unknown[];
}

/** The statements `work` sends on `orm`'s connection. */
export async function statementsOf(orm: MikroORM, work: () => Promise<unknown>): Promise<Sent[]> {
  const connection = orm.em.getDriver().getConnection('write');
  const sent: Sent[] = [];
  const original = connection.execute.bind(connection);
  const spy = vi.spyOn(connection, 'execute').mockImplementation((query, params, ...rest) => {
    if (typeof query === 'string') sent.push({ sql: query, params: Array.isArray(params) ? params : [] });
    return original(query, params, ...rest);
  });
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return sent;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

export interface Cost {
  /** Shared buffers the execution touched (hit or read), planning left out. */
  buffers: number;
  /** Tables a node of the plan read whole. */
  seqScans: string[];
  ms: number;
}

/** The statement run again under `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` with its values. */
export async function explain(orm: MikroORM, statement: Sent): Promise<Cost> {
  const [row] = await orm.em
    .fork()
    .execute<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }[]>(
      `explain (analyze, buffers, format json) ${statement.sql}`,
      [...statement.params],
    );
  const [{ Plan: plan, 'Execution Time': ms }] = row!['QUERY PLAN'];
  const seqScans: string[] = [];
  const walk = (node: PlanNode) => {
    if (node['Node Type'] === 'Seq Scan') seqScans.push(node['Relation Name'] ?? '?');
    node.Plans?.forEach(walk);
  };
  walk(plan);
  return { buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0), seqScans, ms };
}

/** Each read (`select`) among `sent`, by its text, with its cost summed over the times it was sent. */
export async function readCosts(orm: MikroORM, sent: readonly Sent[]): Promise<Map<string, Cost>> {
  const costs = new Map<string, Cost>();
  for (const statement of sent) {
    if (!/^\s*select\b/i.test(statement.sql)) continue;
    const cost = await explain(orm, statement);
    const before = costs.get(statement.sql);
    costs.set(
      statement.sql,
      before
        ? {
            buffers: before.buffers + cost.buffers,
            seqScans: [...before.seqScans, ...cost.seqScans],
            ms: before.ms + cost.ms,
          }
        : cost,
    );
  }
  return costs;
}
