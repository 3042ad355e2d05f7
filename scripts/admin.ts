/**
 * Operator CLI: `npm run admin -- <command>`. Each command prints one JSON document on stdout;
 * a refusal prints one line on stderr and exits 2, having changed nothing.
 */
import { catalogueCommands } from '../admin/catalogue-reprojection.ts';
import { certificationCommands } from '../admin/certification.ts';
import { channelCommands } from '../admin/cli-channel.ts';
import { deliveryCommands, endpointCommands } from '../admin/deliveries.ts';
import { openAdminContext } from '../app/admin-context.ts';
import { keyCommands } from '../admin/cli-key.ts';
import { hostSessionCommands } from '../admin/host-sessions.ts';
import { installationCommands } from '../admin/installations.ts';
import { ownerConnectCommands } from '../admin/owner-connect.ts';
import { sandboxCommands } from '../admin/sandbox.ts';
import { seedDemo } from '../admin/seed.ts';
import { Refusal } from '../services/refusal.ts';

const USAGE = `usage: npm run admin -- <command>
  channel create <name> [--redirect-url URL] [--rate-limit N] [--contact EMAIL]
  channel update <name> [--redirect-url URL|none] [--rate-limit N] [--contact EMAIL|none]
  channel suspend <name> | channel reinstate <name> | channel list
  channel suspend-webhooks <name> | channel resume-webhooks <name>
  key issue <channel> --scopes a,b [--expires-at INSTANT]
  key revoke <key-id> [--leaked] | key list <channel>
  delivery list [--channel C] [--endpoint E] [--state retrying|failed|gone|cancelled|pending|delivered] [--since T] [--limit N]
  delivery retry <delivery-id> | endpoint health <endpoint-id>
  installation list [--organization REF] | installation revoke-token <installation-id>
  owner-connect list-keys | owner-connect rotate-key [--compromised [--kid KID]]
  host-session list --organization REF | host-session end --organization REF
  catalogue reproject [--rate N] [--again] | catalogue reprojection
  seed demo
  sandbox generate [--seed N] [--properties 1000] [--channel NAME ...]   (sandbox only)
  sandbox churn start --rate N [--seed S] [--channel NAME ...] [--changes N] | sandbox churn stop | sandbox churn status   (sandbox only)
  certification list [--channel NAME] [--limit N] | certification show <certification-id>   (sandbox reports)`;

type Handler = (args: string[], ctx: Awaited<ReturnType<typeof openAdminContext>>['ctx']) => Promise<unknown>;
const commands: Record<string, Record<string, Handler>> = {
  channel: channelCommands,
  key: keyCommands,
  delivery: deliveryCommands,
  endpoint: endpointCommands,
  installation: installationCommands,
  'owner-connect': ownerConnectCommands,
  'host-session': hostSessionCommands,
  catalogue: catalogueCommands,
  seed: { demo: (_args, ctx) => seedDemo(ctx) },
  sandbox: sandboxCommands,
  certification: certificationCommands,
};

const [group = '', action = '', ...rest] = process.argv.slice(2);
const handler = commands[group]?.[action];
if (!handler) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

let exitCode = 0;
const opened = await openAdminContext().catch((error: unknown) => {
  process.stderr.write(`admin: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
try {
  const document = await handler(rest, opened.ctx);
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
} catch (error) {
  exitCode = error instanceof Refusal || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
  process.stderr.write(`admin: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  await opened.close();
}
process.exit(exitCode);
