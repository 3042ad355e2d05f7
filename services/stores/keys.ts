import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { addApiKey, countLiveKeys, listApiKeys, revokeApiKey, type NewApiKey } from '../../db/api-keys.ts';
import { findChannelByName } from '../../db/channels.ts';
import { storeOf, type Bound, type Store } from './bind.ts';

/** The key written at once, so that a refused row fails before the key's workflow is started. */
async function insertApiKey(em: EntityManager, key: NewApiKey) {
  const added = addApiKey(em, key);
  await em.flush();
  return added;
}

/** What services/keys.ts reads and writes. */
const keyOperations = { findChannelByName, countLiveKeys, insertApiKey, revokeApiKey, listApiKeys };
export type KeyOperations = Bound<typeof keyOperations>;
export type KeyStore = Store<KeyOperations>;

export function keyStore(orm: MikroORM): KeyStore {
  // One transaction, not retried: a retry would start the key's workflow a second time.
  return storeOf(orm, keyOperations, (em, work) => em.fork().transactional(work));
}
