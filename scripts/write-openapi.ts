/** `npm run lint:openapi` step: writes the description the API serves to a file, for linting and publishing. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../app/config.ts';
import { openApiDocument } from '../api/openapi/document.ts';

const target = process.argv[2] ?? 'dist/openapi.json';
const config = loadConfig();
await mkdir(path.dirname(target), { recursive: true });
await writeFile(target, `${JSON.stringify(openApiDocument(config.publicOrigin), null, 2)}\n`);
console.log(`wrote ${target}`);
