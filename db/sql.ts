import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A Postgres array literal for one `?` placeholder: MikroORM expands a JS array bound to `?`
 * into a list, so arrays travel as text and are cast in SQL (`= any(?::uuid[])`).
 */
export function pgArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}

/**
 * One statement on MikroORM's own pool (`getNativeClient`), its `$1…` values sent apart from the
 * text (the extended protocol): for the statements every read makes (a key's check, a page of a
 * list), where the ORM's query formatting and unit-of-work fork cost more than the statement's own
 * work in this process. The pool's type parsers are the ORM's: timestamps come back as text.
 */
export async function queryRows<T>(em: EntityManager, text: string, values: readonly unknown[]): Promise<T[]> {
  const pool = await em.getConnection().getNativeClient();
  return (await pool.query({ name: statementName(text), text, values: values as unknown[] })).rows as T[];
}

const statementNames = new Map<string, string>();

/**
 * A prepared statement's name per text: each connection parses and plans a statement once
 * instead of on every request. Texts are the few the code writes (no values in them), so the map stays small.
 */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `hot_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return name;
}

const RETRYABLE = new Set(['40001', '40P01']);

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === 'string' && RETRYABLE.has(code);
}

/**
 * Runs `work` in one transaction, again from the start when Postgres aborts it for a deadlock or
 * a serialization failure; those can happen between writers that lock rows in different orders.
 */
export async function writeTransaction<T>(
  em: EntityManager,
  work: (tx: EntityManager) => Promise<T>,
  attempts = 5,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await em.fork().transactional((tx) => work(tx));
    } catch (error) {
      if (attempt >= attempts || !isRetryable(error)) throw error;
    }
  }
}
