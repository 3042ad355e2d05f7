import { parseArgs } from 'node:util';
import { rotateKeyEarly } from '../services/owner-connect/key-rotation.ts';
import { listSigningKeys } from '../services/owner-connect/signing-keys.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

/**
 * `owner-connect rotate-key [--compromised [--kid KID]]`: an early rotation (see
 * services/owner-connect/key-rotation.ts), then the rotation workflow is told to plan again so it
 * switches 24 h after the new key's publication. The keys changed even when Temporal is away: the
 * answer then says the workflow was not told, and its next wake or the next worker start finds them.
 */
async function rotateKey(args: string[], ctx: AdminContext) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { compromised: { type: 'boolean' }, kid: { type: 'string' } },
  });
  if (positionals.length > 0) throw new AdminError(`unexpected argument ${positionals[0]}`);
  const rotation = await rotateKeyEarly(ctx, {
    at: ctx.clock.now(),
    compromised: values.compromised ?? false,
    ...(values.kid !== undefined ? { kid: values.kid } : {}),
  });
  let workflowTold = true;
  try {
    await ctx.workflows.planOwnerConnectKeys(ctx.config.ownerConnectKeyRotationDays);
  } catch (error) {
    workflowTold = false;
    ctx.log.warn(
      'could not signal the owner-connect key rotation; its next wake or the next worker start plans from the new keys',
      { error: String(error) },
    );
  }
  return {
    next_kid: rotation.kid,
    signs_from: rotation.signsFrom,
    created: rotation.created,
    ...(rotation.withdrawn ? { withdrawn_kid: rotation.withdrawn } : {}),
    rotation_workflow_signalled: workflowTold,
    keys: await listSigningKeys(ctx, ctx.clock.now()),
  };
}

/** `owner-connect list-keys`: every key with its state and instants; never a private part. */
async function listKeys(args: string[], ctx: AdminContext) {
  const { positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: {} });
  if (positionals.length > 0) throw new AdminError(`unexpected argument ${positionals[0]}`);
  return { data: await listSigningKeys(ctx, ctx.clock.now()) };
}

export const ownerConnectCommands = { 'rotate-key': rotateKey, 'list-keys': listKeys };
