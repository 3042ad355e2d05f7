import { CountryParams, VatSchedule } from '../../domain/pricing/vat.ts';
import * as quotes from '../../services/quotes.ts';
import { defineOperation } from '../operations.ts';

/**
 * The platform supplies VAT rates per country: each rate applies from its date (the property's
 * local date) until the next. `/quotes` charges a stay at the rate in force on its departure date.
 */
const tags = ['Platform'];

export const putVatRates = defineOperation({
  operationId: 'putVatRates',
  method: 'put',
  path: '/vat-rates/{country}',
  summary: "Replace a country's accommodation VAT schedule",
  description:
    'The whole schedule of the country (ISO 3166-1 alpha-2, upper case): up to 100 rates, one per date, each `{from, rate_bp, applies_to}` (`applies_to` is `accommodation`, the default: nights and the fees added to them). An empty list removes the schedule; quotes then carry no VAT figure.',
  tags,
  scopes: null,
  params: CountryParams,
  body: VatSchedule,
  responses: { 200: { description: 'The schedule as stored, oldest rate first', schema: VatSchedule } },
  problems: ['invalid_parameters', 'platform_token_invalid'],
  handler: async ({ params, body, deps }) => ({ body: await quotes.putVatSchedule(deps, params.country, body) }),
});

export const getVatRates = defineOperation({
  operationId: 'getVatRates',
  method: 'get',
  path: '/vat-rates/{country}',
  summary: "A country's accommodation VAT schedule",
  tags,
  scopes: null,
  params: CountryParams,
  responses: {
    200: { description: 'The schedule, oldest rate first; empty when none was supplied', schema: VatSchedule },
  },
  problems: ['invalid_parameters', 'platform_token_invalid'],
  handler: async ({ params, deps }) => ({ body: await quotes.getVatSchedule(deps, params.country) }),
});

export const vatRateOperations = [putVatRates, getVatRates];
