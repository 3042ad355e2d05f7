import type { MikroORM } from '@mikro-orm/postgresql';
import { channelStore, type ChannelStore } from './channels.ts';
import { keyStore, type KeyStore } from './keys.ts';
import { connectionStore, type ConnectionStore } from './owner-connect.ts';
import { attemptStore, endpointStore, type AttemptStore, type EndpointStore } from './webhooks.ts';

/**
 * The services' ports to the database, one per service that has one: each names the db/ functions
 * its service calls, and its default implementation is those functions (stores/bind.ts). Unit
 * tests give in-memory ones (test/support/service-stand-ins.ts).
 */
export interface ServiceStores {
  channels: ChannelStore;
  keys: KeyStore;
  endpoints: EndpointStore;
  attempts: AttemptStore;
  ownerConnections: ConnectionStore;
}

export function serviceStores(orm: MikroORM): ServiceStores {
  return {
    channels: channelStore(orm),
    keys: keyStore(orm),
    endpoints: endpointStore(orm),
    attempts: attemptStore(orm),
    ownerConnections: connectionStore(orm),
  };
}
