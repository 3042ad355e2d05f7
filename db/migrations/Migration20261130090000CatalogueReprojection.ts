import { Migration } from '@mikro-orm/migrations';

/**
 * The re-projections of the catalogue, one row per projection revision: the digest naming how
 * the code projects (domain/catalogue/projection-digest.ts, services/catalogue-reprojection.ts).
 * Empty until the first worker starts, which records its own revision as the baseline the
 * records were written by. The pass reads `property` by its primary key after its cursor, so it
 * needs no index of its own.
 */
export class Migration20261130090000CatalogueReprojection extends Migration {
  override up(): void {
    this.addSql(
      `create table if not exists "catalogue_reprojection" ("revision" varchar(64) not null, "after" uuid null, "visited" int not null, "written" int not null, "started_at" timestamptz not null, "finished_at" timestamptz null, primary key ("revision"));`,
    );
  }
}
