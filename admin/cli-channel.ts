import { parseArgs } from 'node:util';
import { createChannel, listChannels, setChannelStatus, setWebhooksSuspended, updateChannel } from './channels.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

function onePositional(args: string[], what: string): string {
  const { positionals } = parseArgs({ args, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new AdminError(`expected exactly one ${what}`);
  return positionals[0]!;
}

/** `<name> [--redirect-url URL] [--rate-limit N] [--contact EMAIL]`, shared by create and update. */
function channelSettings(args: string[]) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { 'redirect-url': { type: 'string' }, 'rate-limit': { type: 'string' }, contact: { type: 'string' } },
  });
  if (positionals.length !== 1) throw new AdminError('expected exactly one channel name');
  return {
    name: positionals[0]!,
    redirectUrl: values['redirect-url'],
    rateLimit: values['rate-limit'],
    contact: values.contact,
  };
}

export const channelCommands = {
  create: (args: string[], ctx: AdminContext) => createChannel(ctx, channelSettings(args)),
  update: (args: string[], ctx: AdminContext) => updateChannel(ctx, channelSettings(args)),
  suspend: (args: string[], ctx: AdminContext) =>
    setChannelStatus(ctx, onePositional(args, 'channel name'), 'suspended'),
  reinstate: (args: string[], ctx: AdminContext) =>
    setChannelStatus(ctx, onePositional(args, 'channel name'), 'active'),
  'suspend-webhooks': (args: string[], ctx: AdminContext) =>
    setWebhooksSuspended(ctx, onePositional(args, 'channel name'), true),
  'resume-webhooks': (args: string[], ctx: AdminContext) =>
    setWebhooksSuspended(ctx, onePositional(args, 'channel name'), false),
  list: (args: string[], ctx: AdminContext) => {
    parseArgs({ args, strict: true });
    return listChannels(ctx);
  },
};

export { onePositional };
