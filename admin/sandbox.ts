import { parseArgs } from 'node:util';
import { z } from 'zod';
import {
  DEFAULT_SANDBOX_CHANNELS,
  DEFAULT_SANDBOX_PROPERTIES,
  generateSandbox,
} from '../services/sandbox-catalogue.ts';
import { ChannelName } from './channels.ts';
import { sandboxChurnCommand } from './sandbox-churn.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

const GenerateInput = z.object({
  seed: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1),
  properties: z.coerce.number().int().min(1).max(100_000),
  channels: z.array(ChannelName).min(1).max(100),
});

/** `sandbox generate [--seed N] [--properties N] [--channel NAME ...]`: the generated catalogue, sandbox only. */
export const sandboxCommands = {
  generate: async (args: string[], ctx: AdminContext) => {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        seed: { type: 'string', default: '1' },
        properties: { type: 'string', default: String(DEFAULT_SANDBOX_PROPERTIES) },
        channel: { type: 'string', multiple: true },
      },
    });
    if (positionals.length > 0) throw new AdminError(`unexpected argument: ${positionals[0]}`);
    const input = GenerateInput.safeParse({
      seed: values.seed,
      properties: values.properties,
      channels: [...new Set(values.channel ?? DEFAULT_SANDBOX_CHANNELS)],
    });
    if (!input.success)
      throw new AdminError(input.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    return generateSandbox(ctx, input.data);
  },
  churn: sandboxChurnCommand,
};
