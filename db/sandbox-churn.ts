import type { EntityManager } from '@mikro-orm/postgresql';
import { queryRows } from './sql.ts';

/** A generated (or churned) property as the sandbox churn chooses among them. */
export interface ChurnCandidate {
  ref: string;
  /** It carries a Romanian classification (a certificate whose end date a change can move). */
  certified: boolean;
  /** The channels it is distributed to, by name. */
  channels: string[];
}

/**
 * Every `sbx-` property in ref order but a channel's own trigger records (`sbx-trigger-`, which
 * only that channel's triggers move), with whether it is certified and its channels: one statement
 * per batch of changes, reading the ref index and the distribution rows, never a property's nights.
 */
export async function churnCandidates(em: EntityManager): Promise<ChurnCandidate[]> {
  return queryRows<ChurnCandidate>(
    em,
    `select p.ref,
            (p.content -> 'legal' ->> 'classification') is not null as certified,
            coalesce(array(select c.name from distribution d join channel c on c.id = d.channel_id
                            where d.property_id = p.id order by c.name), '{}') as channels
       from property p
      where p.ref like 'sbx-%' and p.ref not like 'sbx-trigger-%'
      order by p.ref`,
    [],
  );
}
