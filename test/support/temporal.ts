import { Client, Connection } from '@temporalio/client';
import { inject } from 'vitest';
import { onCleanup } from './cleanup.ts';

/** A client of the run's Temporal dev server. */
export async function devServerClient(): Promise<Client> {
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  onCleanup(() => connection.close());
  return new Client({ connection });
}

export function uniqueTaskQueue(name: string): string {
  return `${name}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}
