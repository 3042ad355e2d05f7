import type { MikroORM } from '@mikro-orm/postgresql';
import { changeChannel, channelNameTaken, insertChannel, listChannels } from '../../db/channels.ts';
import { storeOf, type Bound, type Store } from './bind.ts';

/** What services/channels.ts reads and writes. */
const channelOperations = { channelNameTaken, insertChannel, changeChannel, listChannels };
export type ChannelOperations = Bound<typeof channelOperations>;
export type ChannelStore = Store<ChannelOperations>;

export function channelStore(orm: MikroORM): ChannelStore {
  return storeOf(orm, channelOperations);
}
