import type { MikroORM } from '@mikro-orm/postgresql';
import { reproject } from '../../db/catalogue/projector.ts';
import {
  deleteConnection,
  expireToken,
  findToken,
  lockConnection,
  ownerOfExternalId,
  putConnection,
  setTokenState,
} from '../../db/owner-connect.ts';
import { keyByKid } from '../../db/owner-connect-keys.ts';
import { storeOf, type Bound, type Store } from './bind.ts';

/**
 * What services/owner-connect/connection.ts (and the token's check in verify.ts) reads and writes:
 * the token's record, the owner in the channel's view, the connection, its re-projection.
 */
const connectionOperations = {
  keyByKid,
  ownerOfExternalId,
  findToken,
  expireToken,
  lockConnection,
  putConnection,
  deleteConnection,
  setTokenState,
  reproject,
};
export type ConnectionOperations = Bound<typeof connectionOperations>;
export type ConnectionStore = Store<ConnectionOperations>;

export function connectionStore(orm: MikroORM): ConnectionStore {
  return storeOf(orm, connectionOperations);
}
