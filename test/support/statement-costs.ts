import type { MikroORM } from '@mikro-orm/postgresql';
import { vi } from 'vitest';

/**
 * What the service's statements cost, measured by PostgreSQL: the statements a piece of work
 * sends are recorded (text and values, as sent through the ORM's connection), then each is run
 * again under `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)`.
 */

export interface Sent {
  sql: string;
  params: readonly unknown[];
}

/** What `work` answers, and the statements it sent on `orm`'s connection meanwhile. */
export async function statementsOf<T>(orm: MikroORM, work: () => Promise<T>): Promise<{ result: T; sent: Sent[] }> {
  const connection = orm.em.getDriver().getConnection('write');
  const sent: Sent[] = [];
  const original = connection.execute.bind(connection);
  const spy = vi.spyOn(connection, 'execute').mockImplementation((query, params, ...rest) => {
    if (typeof query === 'string') sent.push({ sql: query, params: Array.isArray(params) ? params : [] });
    return original(query, params, ...rest);
  });
  try {
    return { result: await work(), sent };
  } finally {
    spy.mockRestore();
  }
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

export interface Cost {
  /** Shared buffers the execution touched (hit or read), planning left out. */
  buffers: number;
  /** Tables a node of the plan read whole, but for those it found empty (a day of a partitioned table with no rows yet). */
  seqScans: string[];
  /** By table: rows its scans produced or discarded (filter, recheck), over all their loops. */
  rowsExamined: Record<string, number>;
}

/** The statement run again under `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` with its values. */
export async function explain(orm: MikroORM, statement: Sent): Promise<Cost> {
  const [row] = await orm.em
    .fork()
    .execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(`explain (analyze, buffers, format json) ${statement.sql}`, [
      ...statement.params,
    ]);
  const [{ Plan: plan }] = row!['QUERY PLAN'];
  const cost: Cost = {
    buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0),
    seqScans: [],
    rowsExamined: {},
  };
  const walk = (node: PlanNode) => {
    const relation = node['Relation Name'];
    if (relation !== undefined) {
      const examined =
        node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
      if (node['Node Type'] === 'Seq Scan' && examined > 0) cost.seqScans.push(relation);
      cost.rowsExamined[relation] = (cost.rowsExamined[relation] ?? 0) + examined * node['Actual Loops'];
    }
    node.Plans?.forEach(walk);
  };
  walk(plan);
  return cost;
}

/** Each read (`select`) among `sent`, by its text, with its cost summed over the times it was sent. */
export async function readCosts(orm: MikroORM, sent: readonly Sent[]): Promise<Map<string, Cost>> {
  const costs = new Map<string, Cost>();
  for (const statement of sent) {
    if (!/^\s*select\b/i.test(statement.sql)) continue;
    const cost = await explain(orm, statement);
    const before = costs.get(statement.sql);
    if (before) {
      cost.buffers += before.buffers;
      cost.seqScans.unshift(...before.seqScans);
      for (const [relation, rows] of Object.entries(before.rowsExamined))
        cost.rowsExamined[relation] = (cost.rowsExamined[relation] ?? 0) + rows;
    }
    costs.set(statement.sql, cost);
  }
  return costs;
}
