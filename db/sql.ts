import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A Postgres array literal for one `?` placeholder: MikroORM expands a JS array bound to `?`
 * into a list, so arrays travel as text and are cast in SQL (`= any(?::uuid[])`).
 */
export function pgArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
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
export async function writeTransaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await em.fork().transactional((tx) => work(tx));
    } catch (error) {
      if (attempt >= attempts || !isRetryable(error)) throw error;
    }
  }
}
