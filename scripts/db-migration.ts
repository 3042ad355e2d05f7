/**
 * Writes the next migration: applies every existing migration to a scratch database, diffs the
 * entities against it, and saves the difference as db/migrations/Migration<stamp><Name>.ts.
 * Usage: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run db:migration -- Name
 */
import { writeFile, readFile } from 'node:fs/promises';
import { createScratchDatabase } from '../db/scratch.ts';
import { openDatabase } from '../db/orm.ts';

const name = process.argv[2];
const baseUrl = process.env.DATABASE_URL;
if (!name || !/^[A-Z][A-Za-z0-9]+$/.test(name) || !baseUrl) {
  console.error('usage: DATABASE_URL=<server url> npm run db:migration -- <PascalCaseName>');
  process.exit(2);
}
const scratch = await createScratchDatabase(baseUrl, 'migration_scratch');
try {
  const orm = await openDatabase(scratch.url);
  const sql = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: true });
  await orm.close();
  if (!sql.trim()) {
    console.log('entities match the migrations; nothing to write');
  } else {
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const className = `Migration${stamp}${name}`;
    const statements = sql
      .split(/;\n/)
      .map((s) => s.trim())
      .filter(Boolean);
    const body = statements.map((s) => `    this.addSql(${JSON.stringify(s + ';')});`).join('\n');
    await writeFile(
      `db/migrations/${className}.ts`,
      `import { Migration } from '@mikro-orm/migrations';\n\nexport class ${className} extends Migration {\n  override up(): void {\n${body}\n  }\n}\n`,
    );
    const index = await readFile('db/migrations/index.ts', 'utf8');
    const withImport = index.replace(/(\n\/\*\*)/, `import { ${className} } from './${className}.ts';\n$1`);
    await writeFile(
      'db/migrations/index.ts',
      withImport.replace(/\n\];/, `\n  { name: '${className}', class: ${className} },\n];`),
    );
    console.log(`wrote db/migrations/${className}.ts`);
  }
} finally {
  await scratch.drop();
}
