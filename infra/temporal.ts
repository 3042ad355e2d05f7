import { Client, Connection } from '@temporalio/client';

/** A Temporal client on `address`; `close` ends its connection. */
export async function connectTemporalClient(address: string, namespace: string): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace }), close: () => connection.close() };
}
