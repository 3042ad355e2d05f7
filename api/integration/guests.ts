import { z } from 'zod';
import type { Guest as GuestRecord } from '../../db/integration.ts';
import { guestNames } from '../../domain/guests.ts';
import type { IntegrationScope } from '../../domain/integration-tokens.ts';
import { toInstant } from '../../domain/time.ts';
import { GUEST_LIST_LIMIT, guestsOfOrganization } from '../../services/integration.ts';
import { defineOperation } from '../operations.ts';
import { Instant } from '../schemas/common.ts';
import { integrationCallerOf } from './auth.ts';

export const Guest = z
  .object({
    id: z
      .uuid()
      .meta({ description: "The guest's id in this service; a guest removed and written again gets a new one." }),
    organization_id: z.uuid().meta({ description: 'The installing organization.' }),
    first_name: z.string(),
    last_name: z.string(),
    email: z.email(),
    phone: z.string().meta({ description: 'E.164: `+`, country code and number, no spaces.' }),
    name: z.string().meta({
      description:
        'The sorting form, family name first: `"<last_name>, <first_name>"`, e.g. `Popescu, Ana`. For directories and alphabetical lists.',
    }),
    full_name: z.string().meta({
      description:
        'The name as written, given name first: `"<first_name> <last_name>"`, e.g. `Ana Popescu`. For salutations and documents.',
    }),
    created_at: Instant.meta({
      description: 'When the platform first wrote the guest; the list is ordered by it, newest first.',
    }),
    updated_at: Instant,
  })
  .meta({
    id: 'Guest',
    description: 'A guest of the installing organization. Personal data: keep only what the app needs.',
  });

export const GuestList = z.object({ data: z.array(Guest).max(GUEST_LIST_LIMIT) }).meta({ id: 'GuestList' });

export function presentGuest(guest: GuestRecord): z.infer<typeof Guest> {
  const fields = { first_name: guest.firstName, last_name: guest.lastName };
  return {
    id: guest.id,
    organization_id: guest.organizationId,
    ...fields,
    email: guest.email,
    phone: guest.phone,
    ...guestNames(fields),
    created_at: toInstant(guest.createdAt),
    updated_at: toInstant(guest.updatedAt),
  };
}

export const listGuests = defineOperation({
  operationId: 'listGuests',
  method: 'get',
  path: '/guests',
  summary: "The installing organization's newest guests",
  description: `At most ${GUEST_LIST_LIMIT} guests of the organization that installed the app, most recently created first (ties by the order the platform wrote them). Never a guest of another organization; a guest the platform removed is absent from the next answer. Takes no parameters. Answers carry \`Cache-Control: no-store\`: they hold personal data.`,
  tags: ['Guests'],
  scopes: ['guests.read'] as IntegrationScope[],
  query: z.object({}).strict(),
  responses: { 200: { description: 'The newest guests', schema: GuestList } },
  problems: [],
  handler: async ({ deps, res }) => {
    const { installation } = integrationCallerOf(res);
    const guests = await guestsOfOrganization(deps, installation.organization.id);
    return { body: { data: guests.map(presentGuest) }, headers: { 'Cache-Control': 'no-store' } };
  },
});
