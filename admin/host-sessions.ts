import { parseArgs } from 'node:util';
import { toInstant } from '../domain/time.ts';
import { endHostAccess, listHostSessions } from '../services/host-sessions.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

/** `--organization REF` and nothing else. */
function organizationOf(args: string[]): string {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { organization: { type: 'string' } },
  });
  if (positionals.length > 0) throw new AdminError(`unexpected argument ${positionals[0]}`);
  if (values.organization === undefined) throw new AdminError('name the organization: --organization REF');
  return values.organization;
}

export const hostSessionCommands = {
  /** `host-session list --organization REF`: its open sessions on the host pages; never a secret. */
  list: async (args: string[], ctx: AdminContext) => {
    const organization = organizationOf(args);
    const sessions = await listHostSessions(ctx, organization);
    return {
      organization,
      data: sessions.map((s) => ({
        id: s.id,
        locale: s.locale,
        created_at: toInstant(s.createdAt),
        last_seen_at: toInstant(s.lastSeenAt),
        idle_until: toInstant(s.idleUntil),
        expires_at: toInstant(s.expiresAt),
      })),
    };
  },
  /** `host-session end --organization REF`: signs everyone of the organization out and spends its unopened links. */
  end: async (args: string[], ctx: AdminContext) => {
    const organization = organizationOf(args);
    const { endedSessions, spentLinks } = await endHostAccess(ctx, organization);
    return { organization, ended_sessions: endedSessions, spent_links: spentLinks };
  },
};
