import { Migration } from '@mikro-orm/migrations';

/**
 * The re-projections of the catalogue, one row per projection revision
 * (services/catalogue-reprojection.ts). Revision 1 is how every record was projected when this
 * table was made, so it is recorded as finished: only a later revision re-projects. The pass reads
 * `property` by its primary key after its cursor, so it needs no index of its own.
 */
export class Migration20261130090000CatalogueReprojection extends Migration {
  override up(): void {
    this.addSql(
      `create table if not exists "catalogue_reprojection" ("revision" int not null, "after" uuid null, "visited" int not null, "written" int not null, "started_at" timestamptz not null, "finished_at" timestamptz null, primary key ("revision"));`,
    );
    this.addSql(
      `insert into "catalogue_reprojection" ("revision", "after", "visited", "written", "started_at", "finished_at") values (1, null, 0, 0, now(), now()) on conflict do nothing;`,
    );
  }
}
