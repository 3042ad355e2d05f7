import { parseArgs } from 'node:util';
import type { IntegrationToken } from '../db/integration.ts';
import { toInstant } from '../domain/time.ts';
import * as integration from '../services/integration.ts';
import type { InstallationWithOrganization } from '../services/integration.ts';
import { onePositional } from './cli-channel.ts';
import type { AdminContext } from './context.ts';

/** An installation as the operator sees it: its live token by its last four characters only. */
export function installationDocument(installation: InstallationWithOrganization, token: IntegrationToken | null) {
  return {
    id: installation.id,
    organization: installation.organization.ref,
    app: installation.app,
    scopes: installation.scopes,
    status: installation.status,
    created_at: toInstant(installation.createdAt),
    token: token ? { last4: token.last4, scopes: token.scopes, created_at: toInstant(token.createdAt) } : null,
  };
}

export const installationCommands = {
  /** `installation list [--organization REF]` */
  list: async (args: string[], ctx: AdminContext) => {
    const { values } = parseArgs({ args, strict: true, options: { organization: { type: 'string' } } });
    const found = await integration.installationsWithTokens(ctx, values.organization);
    return { data: found.map(({ installation, token }) => installationDocument(installation, token)) };
  },
  /** `installation revoke-token <installation-id>`: the app is refused (401) until the platform issues a new token. */
  'revoke-token': async (args: string[], ctx: AdminContext) => {
    const { installation, revoked } = await integration.revokeIntegrationToken(
      ctx,
      onePositional(args, 'installation id'),
    );
    return { ...installationDocument(installation, null), revoked_tokens: revoked };
  },
};
