import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { SearchAttributeType } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.ts';
import { parseYaml } from '../support/yaml.ts';

// docker-compose.yml cannot be run here (no container engine): CI checks its syntax with
// `docker-compose config`; this file holds it to the code and runs its one-shot jobs' scripts
// against stand-ins for temporal-sql-tool and the temporal CLI that record what they are asked.

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  restart?: string;
}
const compose = parseYaml(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
  'x-service-env': Record<string, string>;
};
const { services } = compose;
const service = (name: string): Service => {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};

/** What compose does to a value before a container sees it: `$$` is `$`, `${NAME:-default}` the default (none set here). */
function interpolate(value: string): string {
  return value
    .replace(/\$\{([A-Z_]+)(?::-([^}]*))?\}/g, (_, _name: string, fallback?: string) => fallback ?? '')
    .replaceAll('$$', '$');
}

const STUB_TEMPORAL = `#!/bin/sh
echo "$*" >> "$STUB/calls"
case "$1 $2 $3" in
  "operator cluster health") echo "SERVING" ;;
  "operator namespace describe") [ -f "$STUB/namespace" ] ;;
  "operator namespace create") echo "$*" > "$STUB/namespace" ;;
  "operator search-attribute list")
    [ -f "$STUB/namespace" ] || exit 1
    echo "Name Type"; echo "WorkflowId Keyword"; cat "$STUB/attributes" 2>/dev/null || true ;;
  "operator search-attribute create")
    name=""; type=""
    while [ $# -gt 0 ]; do
      case "$1" in --name) name="$2"; shift ;; --type) type="$2"; shift ;; esac
      shift
    done
    [ -n "$STUB_FORGETS" ] || echo "$name $type" >> "$STUB/attributes" ;;
  *) exit 3 ;;
esac
`;

/** Runs a service's `sh -ec` script with a stand-in for `tool` on PATH; answers its exit code and the stand-in's state. */
async function runJob(
  name: string,
  tool: string,
  stub: string,
  state?: string,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; state: string; output: string }> {
  const job = service(name);
  expect(job.entrypoint).toEqual(['sh', '-ec']);
  const dir = state ?? (await mkdtemp(path.join(os.tmpdir(), 'compose-job-')));
  await writeFile(path.join(dir, tool), stub);
  await chmod(path.join(dir, tool), 0o755);
  const env = Object.fromEntries(
    Object.entries(job.environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]),
  );
  try {
    const { stdout } = await run('sh', ['-ec', interpolate(job.command![0]!)], {
      env: { PATH: `${dir}:${process.env.PATH}`, STUB: dir, ...env, ...extraEnv },
    });
    return { code: 0, state: dir, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, state: dir, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

const lines = async (file: string) =>
  (await readFile(file, 'utf8').catch(() => ''))
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

describe('docker-compose.yml', () => {
  test('Temporal runs on the images Temporal supports: its server image and admin-tools jobs of the same release, no auto-setup', () => {
    const images = Object.values(services).map((s) => s.image ?? '');
    expect(images.filter((image) => image.includes('auto-setup'))).toEqual([]);
    const server = service('temporal').image!;
    expect(server).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    const release = server.split(':')[1];
    expect(service('temporal-schema').image).toBe(`temporalio/admin-tools:${release}`);
    expect(service('temporal-setup').image).toBe(`temporalio/admin-tools:${release}`);
  });

  test("the schema job creates both of Temporal's databases and migrates them with postgres12 before the server starts", async () => {
    const stub = '#!/bin/sh\necho "$SQL_PLUGIN $SQL_HOST $*" >> "$STUB/calls"\n';
    const { code, state } = await runJob('temporal-schema', 'temporal-sql-tool', stub);
    expect(code).toBe(0);
    const schema = '/etc/temporal/schema/postgresql/v12';
    expect(await lines(path.join(state, 'calls'))).toEqual([
      'postgres12 postgres --db temporal create',
      'postgres12 postgres --db temporal setup-schema -v 0.0',
      `postgres12 postgres --db temporal update-schema -d ${schema}/temporal/versioned`,
      'postgres12 postgres --db temporal_visibility create',
      'postgres12 postgres --db temporal_visibility setup-schema -v 0.0',
      `postgres12 postgres --db temporal_visibility update-schema -d ${schema}/visibility/versioned`,
    ]);
    // A failing step stops the job (and so the server, which waits for it to succeed).
    const failing = '#!/bin/sh\necho "$*" >> "$STUB/calls"\ncase "$*" in *setup-schema*) exit 1 ;; esac\n';
    const broken = await runJob('temporal-schema', 'temporal-sql-tool', failing);
    expect(broken.code).not.toBe(0);
    expect(await lines(path.join(broken.state, 'calls'))).toHaveLength(2);

    expect(service('temporal-schema').depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(service('temporal').depends_on).toEqual({
      'temporal-schema': { condition: 'service_completed_successfully' },
    });
    expect(service('temporal').environment).toMatchObject({
      DB: 'postgres12',
      POSTGRES_SEEDS: 'postgres',
      DBNAME: 'temporal',
      VISIBILITY_DBNAME: 'temporal_visibility',
    });
  });

  test('the setup job registers, as Keyword, exactly the search attributes the code uses, on the namespace the service uses, and fails when one is missing', async () => {
    const setup = service('temporal-setup');
    const names = String(setup.environment!.SEARCH_ATTRIBUTES).split(/\s+/).filter(Boolean);
    expect([...names].sort()).toEqual(SEARCH_ATTRIBUTES.map((key) => key.name).sort());
    // The job registers every one as Keyword: the code must declare them so.
    expect(SEARCH_ATTRIBUTES.filter((key) => key.type !== SearchAttributeType.KEYWORD)).toEqual([]);
    expect(setup.environment!.NAMESPACE).toBe(compose['x-service-env'].TEMPORAL_NAMESPACE);
    expect(setup.environment!.TEMPORAL_ADDRESS).toBe(compose['x-service-env'].TEMPORAL_ADDRESS);

    const first = await runJob('temporal-setup', 'temporal', STUB_TEMPORAL);
    expect(first.code, first.output).toBe(0);
    expect(await lines(path.join(first.state, 'attributes'))).toEqual(names.map((name) => `${name} Keyword`));
    expect(await readFile(path.join(first.state, 'namespace'), 'utf8')).toContain(
      `--namespace ${String(setup.environment!.NAMESPACE)} --retention 168h`,
    );
    // Run again (a restarted stack): it creates nothing more.
    const again = await runJob('temporal-setup', 'temporal', STUB_TEMPORAL, first.state);
    expect(again.code, again.output).toBe(0);
    const calls = await lines(path.join(first.state, 'calls'));
    expect(calls.filter((call) => call.startsWith('operator search-attribute create'))).toHaveLength(names.length);
    expect(calls.filter((call) => call.startsWith('operator namespace create'))).toHaveLength(1);
    // A server that answers a create without registering the attribute fails the job.
    const forgetful = await runJob('temporal-setup', 'temporal', STUB_TEMPORAL, undefined, { STUB_FORGETS: '1' });
    expect(forgetful.code).not.toBe(0);

    expect(setup.depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
  });

  test('the migrations run once, as a job, before the API and the worker start on the same database', () => {
    const migrate = service('migrate');
    expect(migrate.command).toEqual(['node', 'scripts/migrate.ts']);
    expect(migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(migrate.environment!.DATABASE_URL).toBe(compose['x-service-env'].DATABASE_URL);
    for (const name of ['api', 'worker']) {
      expect(service(name).depends_on, name).toEqual({
        migrate: { condition: 'service_completed_successfully' },
        'temporal-setup': { condition: 'service_completed_successfully' },
      });
    }
  });

  test('the API reads the TLS pair compose:tls writes into ./tls', () => {
    const api = service('api');
    expect(api.volumes).toContain('./tls:/run/tls:ro');
    expect(api.environment).toMatchObject({ TLS_CERT: '/run/tls/tls.crt', TLS_KEY: '/run/tls/tls.key' });
  });
});
