import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { describe, expect, test } from 'vitest';
import { ListingReportInput, ListingStatsInput } from '../../api/distribution/listings.ts';
import { QuoteQuery } from '../../api/distribution/quotes.ts';
import { openApiDocument } from '../../api/openapi/document.ts';
import { isExternalId } from '../../domain/catalogue/ids.ts';
import { reportRuleErrors } from '../../domain/listings/report.ts';

// What the validators refuse and JSON Schema can say, the description says: a body or query the
// description calls valid passes the validators, and one it calls invalid is refused.
const document = openApiDocument('https://distribution.test', 'sandbox');
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajvFormats.default(ajv);
ajv.addSchema({ $id: 'components', components: document.components });
const valid = (component: string, value: unknown) =>
  ajv.validate({ $ref: `components#/components/schemas/${component}` }, value);
type Query = { name: string; schema: { pattern?: string } };
const quoteParameters = (document.paths['/quotes']!.get!.parameters ?? []) as Query[];

describe('listing reports: the rules tying fields together are in the description', () => {
  const statuses = ['published', 'rejected', 'unpublished', 'delisted'];
  const urls = [undefined, null, 'https://travel.example/stay/1'];
  const rejections = [undefined, null, { reason: 'photos' }];
  const promotions: Record<string, unknown>[] = [
    {},
    { promoted: false },
    { promoted: true },
    { promoted: true, promoted_until: '2026-12-31T22:00:00Z' },
    { promoted_until: '2026-12-31T22:00:00Z' },
  ];
  const reports = statuses.flatMap((status) =>
    urls.flatMap((public_url) =>
      rejections.flatMap((rejection) =>
        promotions.map((promotion) => ({
          status,
          ...(public_url === undefined ? {} : { public_url }),
          ...(rejection === undefined ? {} : { rejection }),
          ...promotion,
        })),
      ),
    ),
  );

  test.each(reports)('%j: the description and the service agree', (report) => {
    const parsed = ListingReportInput.safeParse(report);
    const accepted = parsed.success && reportRuleErrors(parsed.data).length === 0;
    expect(valid('ListingReportInput', report)).toBe(accepted);
  });
});

describe('query and body fields state the patterns they are checked against', () => {
  const childAges = new RegExp(quoteParameters.find((p) => p.name === 'children')!.schema.pattern!);
  test.each([
    '',
    '4',
    '4,9',
    ' 4 , 17 ',
    '07',
    '18',
    '4,',
    ',',
    ' ',
    'a',
    '-1',
    Array.from({ length: 30 }, () => '3').join(','),
    Array.from({ length: 31 }, () => '3').join(','),
  ])('children %j', (children) => {
    const query = { property_id: 'prp_x', arrival: '2026-12-01', departure: '2026-12-03', adults: '2', children };
    expect(childAges.test(children)).toBe(QuoteQuery.safeParse(query).success);
  });

  test.each([
    'prp_0h2k4m6p8r0t2v4x6z8b0d2f4h',
    'prp_8h2k4m6p8r0t2v4x6z8b0d2f4h',
    'prp_0H2K4M6P8R0T2V4X6Z8B0D2F4H',
    'loc_0h2k4m6p8r0t2v4x6z8b0d2f4h',
    'prp_x',
  ])('listing statistics property_id %j', (propertyId) => {
    const body = { data: [{ property_id: propertyId, date: '2026-11-21', views: 3, clicks_to_booking: 1 }] };
    expect(valid('ListingStatsInput', body)).toBe(
      ListingStatsInput.safeParse(body).success && isExternalId('property', propertyId),
    );
  });
});
