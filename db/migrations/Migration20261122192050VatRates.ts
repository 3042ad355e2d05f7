import { Migration } from '@mikro-orm/migrations';

export class Migration20261122192050VatRates extends Migration {
  override up(): void {
    this.addSql(
      'create table "vat_rate" ("country" varchar(2) not null, "applies_to" varchar(32) not null, "valid_from" date not null, "rate_bp" int not null, primary key ("country", "applies_to", "valid_from"));',
    );
  }
}
