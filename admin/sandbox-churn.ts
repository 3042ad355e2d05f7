import { parseArgs } from 'node:util';
import { z } from 'zod';
import { DEFAULT_SANDBOX_CHANNELS } from '../services/sandbox-catalogue.ts';
import { sandboxChurnStatus, startSandboxChurn, stopSandboxChurn } from '../services/sandbox-churn-control.ts';
import { ChannelName } from './channels.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

const StartInput = z.object({
  rate: z.coerce.number().positive().max(1000),
  seed: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1),
  channels: z.array(ChannelName).min(1).max(100),
  changes: z.coerce.number().int().min(1).max(100_000_000).optional(),
});

function issues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
}

async function start(args: string[], ctx: AdminContext) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      rate: { type: 'string' },
      seed: { type: 'string', default: '1' },
      channel: { type: 'string', multiple: true },
      changes: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new AdminError(`unexpected argument: ${positionals[0]}`);
  if (values.rate === undefined) throw new AdminError('--rate: changes a second, above 0 and at most 1000');
  const input = StartInput.safeParse({
    rate: values.rate,
    seed: values.seed,
    channels: [...new Set(values.channel ?? DEFAULT_SANDBOX_CHANNELS)],
    changes: values.changes,
  });
  if (!input.success) throw new AdminError(issues(input.error));
  const { changes, ...request } = input.data;
  return startSandboxChurn(ctx, { ...request, ...(changes === undefined ? {} : { changes }) });
}

function noArguments(args: string[]): void {
  parseArgs({ args, strict: true, options: {} });
}

const CHURN = {
  start,
  stop: async (args: string[], ctx: AdminContext) => (noArguments(args), stopSandboxChurn(ctx)),
  status: async (args: string[], ctx: AdminContext) => (noArguments(args), sandboxChurnStatus(ctx)),
};

/**
 * `sandbox churn start --rate N [--seed S] [--channel NAME ...] [--changes N]`, `sandbox churn
 * stop`, `sandbox churn status`: the generated catalogue kept moving, sandbox only.
 */
export async function sandboxChurnCommand(args: string[], ctx: AdminContext): Promise<unknown> {
  const [action, ...rest] = args;
  if (action !== 'start' && action !== 'stop' && action !== 'status')
    throw new AdminError('sandbox churn start --rate N [--seed S] [--channel NAME ...] [--changes N] | stop | status');
  return CHURN[action](rest, ctx);
}
