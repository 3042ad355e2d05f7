/** `npm run lint:openapi` step: writes the descriptions the API serves to files, for linting and publishing. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../app/config.ts';
import { integrationDocument } from '../api/integration/index.ts';
import { platformDocument } from '../api/internal/openapi.ts';
import { openApiDocument } from '../api/openapi/document.ts';

const target = process.argv[2] ?? 'dist/openapi.json';
const integrationTarget = process.argv[3];
const platformTarget = process.argv[4];
const config = loadConfig();
await mkdir(path.dirname(target), { recursive: true });
await writeFile(target, `${JSON.stringify(openApiDocument(config.publicOrigin, config.environment), null, 2)}\n`);
console.log(`wrote ${target}`);
if (integrationTarget) {
  await writeFile(integrationTarget, `${JSON.stringify(integrationDocument(config.publicOrigin), null, 2)}\n`);
  console.log(`wrote ${integrationTarget}`);
}
if (platformTarget) {
  await writeFile(platformTarget, `${JSON.stringify(platformDocument(config.publicOrigin), null, 2)}\n`);
  console.log(`wrote ${platformTarget}`);
}
