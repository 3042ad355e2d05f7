import { Routine } from '@mikro-orm/core';

/**
 * Every "valid through" date (YYYY-MM-DD) of a property's legal data: its certificate's and its
 * identifiers'. Indexed (GIN, migration HostOverviewIndexes), so the properties with a date near
 * today are found without reading every property; a malformed shape gives no date, not an error.
 * The migration also declares its cost (1000), which this declaration cannot carry.
 */
export const LegalValidUntilDates = new Routine({
  name: 'legal_valid_until_dates',
  type: 'function',
  params: { legal: { type: 'jsonb' } },
  returns: { runtimeType: 'object', columnType: 'text[]' },
  language: 'sql',
  deterministic: true,
  body: `select coalesce(array_agg(d) filter (where d is not null), '{}') from (
    select legal->'classification'->>'valid_until' as d
    union all
    select i->>'valid_until' from jsonb_array_elements(case when jsonb_typeof(legal->'identifiers') = 'array' then legal->'identifiers' else '[]'::jsonb end) i
  ) dates`,
});

export const routines = [LegalValidUntilDates];
