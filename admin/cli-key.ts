import { parseArgs } from 'node:util';
import { onePositional } from './cli-channel.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';
import { issueKey, listKeys, revokeKey } from './keys.ts';

export const keyCommands = {
  issue: async (args: string[], ctx: AdminContext) => {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { scopes: { type: 'string' }, 'expires-at': { type: 'string' } },
    });
    if (positionals.length !== 1) throw new AdminError('expected exactly one channel name');
    if (!values.scopes) throw new AdminError('--scopes is required, e.g. --scopes read:catalog,read:ari');
    return issueKey(ctx, { channel: positionals[0]!, scopes: values.scopes, expiresAt: values['expires-at'] });
  },
  revoke: async (args: string[], ctx: AdminContext) => {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { leaked: { type: 'boolean' } },
    });
    if (positionals.length !== 1) throw new AdminError('expected exactly one key id');
    return revokeKey(ctx, positionals[0]!, { leaked: values.leaked ?? false });
  },
  list: (args: string[], ctx: AdminContext) => listKeys(ctx, onePositional(args, 'channel name')),
};
