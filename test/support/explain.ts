import type { MikroORM } from '@mikro-orm/postgresql';
import { vi } from 'vitest';

/**
 * What a statement of the service costs, measured by PostgreSQL itself: `EXPLAIN (ANALYZE,
 * BUFFERS, FORMAT JSON)` of the very text and values the service sent.
 */

/** A statement as the service sent it through the ORM's connection. */
export interface SentStatement {
  sql: string;
  params: readonly unknown[];
}

/** The statements sent on `orm`'s connection whose text `matches`, from now until `stop`. */
export function captureStatements(
  orm: MikroORM,
  matches: (sql: string) => boolean,
): { statements: SentStatement[]; stop: () => void } {
  const connection = orm.em.getDriver().getConnection('write');
  const statements: SentStatement[] = [];
  const original = connection.execute.bind(connection);
  const spy = vi.spyOn(connection, 'execute').mockImplementation((query, params, ...rest) => {
    if (typeof query === 'string' && matches(query))
      statements.push({ sql: query, params: Array.isArray(params) ? params : [] });
    return original(query, params, ...rest);
  });
  return { statements, stop: () => spy.mockRestore() };
}

export interface StatementCost {
  /** Rows the scans of `relation` produced or discarded (filter, recheck), over all their loops. */
  rowsExamined: number;
  /** Shared buffers the execution touched (hit or read), planning left out. */
  buffers: number;
  executionMs: number;
  plan: PlanNode;
}

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

function nodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodes)];
}

/** Runs the statement again under `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)`, with the same values. */
export async function explainStatement(
  orm: MikroORM,
  statement: SentStatement,
  relation: string,
): Promise<StatementCost> {
  const [row] = await orm.em
    .fork()
    .execute<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }[]>(
      `explain (analyze, buffers, format json) ${statement.sql}`,
      [...statement.params],
    );
  const [{ Plan: plan, 'Execution Time': executionMs }] = row!['QUERY PLAN'];
  const rowsExamined = nodes(plan)
    .filter((node) => node['Relation Name'] === relation)
    .reduce(
      (sum, node) =>
        sum +
        (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) *
          node['Actual Loops'],
      0,
    );
  return { rowsExamined, buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'], executionMs, plan };
}
