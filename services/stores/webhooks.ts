import type { MikroORM } from '@mikro-orm/postgresql';
import { changeChannel } from '../../db/channels.ts';
import {
  endpointContact,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  lockChannelEndpoints,
  markEndpointDeleted,
  reactivateEndpoint,
  replaceSecret,
  suspendEndpoint,
} from '../../db/webhook-endpoints.ts';
import {
  attemptContext,
  cancelPendingDeliveryRows,
  finishDelivery,
  recordAttempt,
} from '../../db/webhook-deliveries.ts';
import { startDispatch } from '../../db/webhook-dispatch.ts';
import { storeOf, type Bound, type Store } from './bind.ts';

/** What services/webhooks.ts reads and writes: a channel's endpoints, their pending deliveries, its webhooks' hold. */
const endpointOperations = {
  findEndpoint,
  listEndpoints,
  lockChannelEndpoints,
  insertEndpoint,
  startDispatch,
  markEndpointDeleted,
  reactivateEndpoint,
  replaceSecret,
  cancelPendingDeliveryRows,
  changeChannel,
};
export type EndpointOperations = Bound<typeof endpointOperations>;
export type EndpointStore = Store<EndpointOperations>;

export function endpointStore(orm: MikroORM): EndpointStore {
  return storeOf(orm, endpointOperations);
}

/** What services/webhook-attempts.ts reads and writes: one attempt, a suspension, whom to tell. */
const attemptOperations = { attemptContext, finishDelivery, recordAttempt, suspendEndpoint, endpointContact };
export type AttemptOperations = Bound<typeof attemptOperations>;
export type AttemptStore = Store<AttemptOperations>;

export function attemptStore(orm: MikroORM): AttemptStore {
  return storeOf(orm, attemptOperations);
}
