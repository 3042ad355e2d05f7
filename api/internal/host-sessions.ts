import { z } from 'zod';
import { Ref } from '../../domain/catalogue/source.ts';
import { LANGUAGE_TAG } from '../../domain/host-locale.ts';
import { toInstant } from '../../domain/time.ts';
import { createHostLink, HOST_LINK_SECONDS } from '../../services/host-sessions.ts';
import { organizationRuleErrors } from '../../services/integration.ts';
import { HOST_BASE } from '../host/paths.ts';
import { Instant } from '../schemas/common.ts';
import { defineOperation } from '../operations.ts';
import { wellFormedFields } from '../validation.ts';

/**
 * The platform vouches for a host: it asks for a one-time link to the host pages for one of its
 * organizations and sends the host's browser there (see docs/host-pages.md "How the platform
 * opens them").
 */

const HostSessionInput = z
  .object({
    organization: Ref.meta({ description: "The platform's reference of the organization the host acts for." }),
    locale: z.string().regex(LANGUAGE_TAG, 'a BCP 47 language tag such as `ro` or `en-GB`').optional().meta({
      description:
        "The host's interface language (BCP 47). The pages are in English, Romanian, Italian and Spanish; any other language gets English. The host can switch on the pages.",
    }),
  })
  .strict();

const HostSessionLink = z
  .object({
    url: z.url().meta({
      description:
        "Open it once, in the host's browser, before `expires_at`: it starts a session on the host pages and is then spent.",
    }),
    expires_at: Instant,
  })
  .meta({ id: 'HostSessionLink' });

export const createHostSession = defineOperation({
  operationId: 'createHostSession',
  method: 'post',
  path: '/host-sessions',
  summary: 'A one-time link that signs a host of an organization in to the host pages',
  tags: ['Platform'],
  scopes: null,
  description: [
    `Answers a link valid ${HOST_LINK_SECONDS / 60} minutes and usable once. Opening it in a browser starts a session on the service's host pages`,
    '(`/host/` on the public listener) scoped to the organization: an HttpOnly, Secure, SameSite=Lax cookie whose secret is stored hashed,',
    'ending after 8 hours without a request, 12 hours after it started, or at logout. A used or expired link shows a page saying so; ask for a new one.',
    'An organization the platform never wrote is `invalid_parameters` (`unknown_reference` at `/organization`).',
  ].join(' '),
  body: HostSessionInput,
  laterRules: ({ body, deps }) => organizationRuleErrors(deps, wellFormedFields(HostSessionInput, body).organization),
  responses: { 201: { description: 'The link', schema: HostSessionLink } },
  problems: ['invalid_parameters', 'platform_token_invalid'],
  handler: async ({ body, deps, req }) => {
    const { token, expiresAt } = await createHostLink(deps, { organization: body.organization, locale: body.locale });
    const origin = String(req.app.locals.publicOrigin);
    return {
      status: 201,
      body: { url: `${origin}${HOST_BASE}/open?token=${token}`, expires_at: toInstant(expiresAt) },
    };
  },
});

export const hostSessionOperations = [createHostSession];
