import { z } from 'zod';
import { daysBetween, MAX_WINDOW_NIGHTS } from '../../domain/availability/nights.ts';
import { quoteRuleErrors, quoteStayFor } from '../../services/quotes.ts';
import { defineOperation } from '../operations.ts';
import { Money } from '../schemas/records.ts';
import { matching, openEnum } from '../schemas/common.ts';
import { wellFormedFields } from '../validation.ts';

const MAX_GUESTS = 30;
const MAX_CHILD_AGE = 17;

const LocalDate = z.iso.date({ message: 'a date YYYY-MM-DD' });

/** What ChildAges accepts: empty, or up to MAX_GUESTS ages 0-17 (one or two digits), comma-separated, blanks around each allowed. */
const AGE = '\\s*(?:0?\\d|1[0-7])\\s*';
const CHILD_AGES_PATTERN = new RegExp(`^(?:${AGE}(?:,${AGE}){0,${MAX_GUESTS - 1}})?$`);

const ChildAges = matching(
  CHILD_AGES_PATTERN,
  'child_ages',
  `comma-separated ages 0 to ${MAX_CHILD_AGE}, at most ${MAX_GUESTS}`,
)
  .transform((text) => (text === '' ? [] : text.split(',').map((part) => Number(part.trim()))))
  .optional()
  .meta({
    description: `Comma-separated ages of the children, one per child (\`4,9\`), each 0 to ${MAX_CHILD_AGE}. Infants are counted apart (\`infants\`), never here.`,
  });

export const QuoteQuery = z
  .object({
    property_id: z
      .string()
      .min(1)
      .max(64)
      .meta({ description: 'The property (`prp_` id); 404 when the channel does not see it.' }),
    arrival: LocalDate.meta({ description: "First night, the property's local date; not before its today." }),
    departure: LocalDate.meta({
      description: `Exclusive: the morning the party leaves; after \`arrival\`, at most ${MAX_WINDOW_NIGHTS} nights later and not beyond the property's \`horizon_end\` (else 400 \`window_beyond_horizon\`).`,
    }),
    adults: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_GUESTS)
      .meta({ description: `Adults, 1 to ${MAX_GUESTS}.` }),
    children: ChildAges,
    infants: z.coerce
      .number()
      .int()
      .min(0)
      .max(MAX_GUESTS)
      .default(0)
      .meta({ description: 'Infants (priced by `infant_price`, never taxed).' }),
  })
  .strict()
  .superRefine((query, ctx) => {
    // Judged between two dates only: a malformed one is named once, by its own rule.
    if (!LocalDate.safeParse(query.arrival).success || !LocalDate.safeParse(query.departure).success) return;
    if (query.departure <= query.arrival)
      ctx.addIssue({
        code: 'custom',
        path: ['departure'],
        message: '`departure` is after `arrival`',
        params: { code: 'range' },
      });
    else if (daysBetween(query.arrival, query.departure) > MAX_WINDOW_NIGHTS) {
      ctx.addIssue({
        code: 'custom',
        path: ['departure'],
        message: `at most ${MAX_WINDOW_NIGHTS} nights after arrival`,
        params: { code: 'max_nights' },
      });
    }
  });

const Quote = z
  .object({
    rate_plan_id: z.string(),
    total: Money.meta({
      description:
        'What the guest pays for the stay, VAT included: the nights and the fees added. Fees shown beside it are not in it.',
    }),
    nights: z.array(z.object({ date: z.string(), price: Money })).meta({
      description:
        "Each night for the party, at the VAT rate the stay is charged (the departure date's), rounded on its own for display: the nights and fees may differ from `total` by rounding.",
    }),
    fees_added: z
      .array(z.object({ type: z.string(), per: z.string(), amount: Money }))
      .meta({ description: 'Fees not included in the nightly prices and payable at booking; in `total`.' }),
    fees_beside: z
      .array(
        z.object({
          type: z.string(),
          payable_at: z.string(),
          included_in_price: z.boolean(),
          charge: openEnum(
            ['amount', 'percent', 'unknown', 'may_apply'],
            '`amount`: the most charged, in `amount`; `percent`: a share the property computes (`percent_bp` of `percent_of`); `unknown`: the fee exists, its amount is not known (never zero); `may_apply`: the property has not said whether a tourist tax applies.',
          ),
          amount: Money.nullable(),
          percent_bp: z.int().nullable(),
          percent_of: z.string().nullable(),
        }),
      )
      .meta({
        description:
          'Shown beside the total, not in it: the tourist tax (payable at the property) and fees already in the nightly prices.',
      }),
    vat: z.object({ rate_bp: z.int(), amount: Money }).nullable().meta({
      description:
        "The VAT in `total`: the rate in force on the departure date, over the whole stay, rounded once. Null when the platform has no VAT rate for the property's country on those dates.",
    }),
  })
  .meta({ id: 'Quote' });

export const getQuote = defineOperation({
  operationId: 'getQuote',
  method: 'get',
  path: '/quotes',
  summary: 'Exact price of a stay (stage 2)',
  description:
    "One quote per rate plan whose rules admit the stay (closed nights, units, `min_stay`, `max_stay`, `closed_to_arrival`, `closed_to_departure`, capacity, occupancy and age bands), cheapest first; plans at the same total keep the property's order. " +
    "No plan admitting it is an empty list, as is an inactive property. The total is the property's own price, VAT included: VAT is rounded once over the whole stay at the rate in force on the departure date. " +
    '**Served on the sandbox first**: marked planned and answered 501 `not_implemented` in production until it is released there. Scope `read:ari` (the contract leaves it unshown).',
  tags: ['Availability'],
  scopes: ['read:ari'],
  readsCallerIdentityOnly: true,
  plannedIn: ['production'],
  query: QuoteQuery,
  responses: {
    200: {
      description: 'The quotes, cheapest first',
      schema: z.object({ data: z.array(Quote) }).meta({ id: 'QuoteList' }),
    },
  },
  laterRules: ({ query, caller, deps }) =>
    quoteRuleErrors(deps, caller.channel.id, wellFormedFields(QuoteQuery, query)),
  problems: ['invalid_parameters', 'window_beyond_horizon', 'not_found'],
  handler: async ({ query, caller, deps }) => ({
    body: {
      data: await quoteStayFor(deps, caller.channel.id, {
        ...query,
        children: query.children ?? [],
        infants: query.infants,
      }),
    },
  }),
});
