import { createRequire } from 'node:module';

/**
 * YAML text to plain data (YAML 1.2 core schema, merge keys `<<` resolved), for the tests that
 * read docker-compose.yml and the Prometheus rules: js-yaml, a development dependency (the one
 * @redocly/cli already brings). It ships no types, hence the narrow signature here.
 */
const { load } = createRequire(import.meta.url)('js-yaml') as { load: (text: string) => unknown };

export function parseYaml(text: string): unknown {
  return load(text);
}
