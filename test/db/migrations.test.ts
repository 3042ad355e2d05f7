import { expect, test } from 'vitest';
import { freshDatabase } from '../support/database.ts';

/** The schema comes only from migrations: an entity change without its migration fails here. */
test('the migrated schema matches the entities exactly', async () => {
  const { orm } = await freshDatabase();
  const pending = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: true });
  expect(pending.trim()).toBe('');
});

test('migrations are all applied and re-running them is a no-op', async () => {
  const { orm } = await freshDatabase();
  expect(await orm.migrator.getPending()).toEqual([]);
  expect(await orm.migrator.up()).toEqual([]);
});

test('the request counter table is unlogged', async () => {
  const { orm } = await freshDatabase();
  const [table] = await orm.em
    .getConnection()
    .execute<{ relpersistence: string }[]>("select relpersistence from pg_class where relname = 'request_counter'");
  expect(table?.relpersistence).toBe('u');
});
