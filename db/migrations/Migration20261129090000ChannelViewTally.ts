import { Migration } from '@mikro-orm/migrations';

/**
 * A location's and an owner's status in a channel's view follows the strongest status among the
 * properties the channel was shown under it. Instead of reading every such property on each
 * write, `channel_view_tally` counts them per (channel, location or owner, status), kept by
 * triggers on `channel_resource` in the writing statement's own transaction, so every writer
 * (the projector, a bulk load, a restore's data) keeps it exact. The triggers are per statement
 * and read its transition tables: a statement that writes many views updates each count once.
 * The two indexes that served the old read are dropped; nothing else looked views up by location
 * or owner.
 */
export class Migration20261129090000ChannelViewTally extends Migration {
  override up(): void {
    this.addSql(
      `create table "channel_view_tally" ("channel_id" uuid not null, "kind" varchar(16) not null, "internal_id" uuid not null, "status" text not null, "properties" int not null, primary key ("channel_id", "kind", "internal_id", "status"));`,
    );
    // A statement's new views count +1 under their location and owner, its old ones -1 (an update
    // removes the row as it was and adds it as it is), netted per count. The transition tables are
    // named the same for the three events; only those of the event firing exist.
    this.addSql(`create function "channel_view_tally_fn"() returns trigger language plpgsql as $$
declare
  changes text := case tg_op
    when 'INSERT' then 'select channel_id, kind, location_id, owner_id, status, 1 as delta from added'
    when 'DELETE' then 'select channel_id, kind, location_id, owner_id, status, -1 as delta from removed'
    else 'select channel_id, kind, location_id, owner_id, status, 1 as delta from added
          union all select channel_id, kind, location_id, owner_id, status, -1 from removed' end;
begin
  execute format($sql$
    insert into channel_view_tally (channel_id, kind, internal_id, status, properties)
    select v.channel_id, k.kind, k.internal_id, v.status, sum(v.delta) from (%s) v
     cross join lateral (values ('location', v.location_id), ('owner', v.owner_id)) as k(kind, internal_id)
     where v.kind = 'property' and k.internal_id is not null
     group by v.channel_id, k.kind, k.internal_id, v.status
    having sum(v.delta) <> 0
    on conflict (channel_id, kind, internal_id, status)
      do update set properties = channel_view_tally.properties + excluded.properties$sql$, changes);
  return null;
end $$;`);
    this.addSql(
      `create trigger "channel_resource_tally_insert" after insert on "channel_resource" referencing new table as added for each statement execute function "channel_view_tally_fn"();`,
    );
    this.addSql(
      `create trigger "channel_resource_tally_update" after update on "channel_resource" referencing old table as removed new table as added for each statement execute function "channel_view_tally_fn"();`,
    );
    this.addSql(
      `create trigger "channel_resource_tally_delete" after delete on "channel_resource" referencing old table as removed for each statement execute function "channel_view_tally_fn"();`,
    );
    this.addSql(`insert into "channel_view_tally" ("channel_id", "kind", "internal_id", "status", "properties")
      select r.channel_id, k.kind, k.internal_id, r.status, count(*) from "channel_resource" r
       cross join lateral (values ('location', r.location_id), ('owner', r.owner_id)) as k(kind, internal_id)
       where r.kind = 'property' and k.internal_id is not null
       group by r.channel_id, k.kind, k.internal_id, r.status;`);
    this.addSql('drop index "channel_resource_channel_id_location_id_index";');
    this.addSql('drop index "channel_resource_channel_id_owner_id_index";');
  }
}
