/**
 * One Schemathesis run of `npm run fuzz` against one served description: the committed settings
 * (scripts/fuzz.schemathesis.toml) with that interface's test data appended, its own token, its
 * share of the time budget, and the checks every interface is held to.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { withoutPytestBanner } from './fuzz-output.ts';

/**
 * What must hold for every generated request. `positive_data_acceptance` (schema-valid input is
 * accepted) is left to manual runs (FUZZ_EXTRA_CHECKS=positive_data_acceptance): some refusals
 * cannot be written as a JSON Schema (a forged cursor of the right shape, `to` not after `from`, an
 * `updated_since` older than 35 days answered 410) and are stated in the parameters' descriptions.
 */
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
];

export interface FuzzTarget {
  /** The interface's name in the run's lines and its scratch directory. */
  name: string;
  descriptionUrl: string;
  /** The bearer token every generated request carries (never printed). */
  token: string;
  /** TOML appended to the committed settings: the seeded values bound to the parameters. */
  testData: string;
  maxSeconds: number;
  /** Schemathesis's `--rate-limit` (`110/m`): below a limit the service enforces whatever the fuzzer is given. */
  rateLimit?: string;
}

export interface FuzzOutcome {
  name: string;
  code: number;
  /** Schemathesis's operation count and its `Test cases:` line (`6241 generated, 6241 passed`). */
  operations: string;
  cases: string;
}

export interface FuzzRunOptions {
  root: string;
  workDir: string;
  caPath: string;
  maxExamples: number;
  seed: string;
  say: (line: string) => void;
}

export async function runSchemathesis(target: FuzzTarget, options: FuzzRunOptions): Promise<FuzzOutcome> {
  const { root, caPath, say } = options;
  // Its own directory per interface: Schemathesis keeps its replay cache (requests included) in the
  // working directory, and that goes with the run.
  const workDir = path.join(options.workDir, target.name);
  await mkdir(workDir, { recursive: true });
  const configFile = path.join(workDir, 'schemathesis.toml');
  await writeFile(
    configFile,
    `${await readFile(path.join(root, 'scripts/fuzz.schemathesis.toml'), 'utf8')}\n${target.testData}`,
  );
  const args = [
    '--config-file',
    configFile,
    'run',
    target.descriptionUrl,
    '--header',
    `Authorization: Bearer ${target.token}`,
    '--tls-verify',
    caPath,
    '--checks',
    [...CHECKS, ...(process.env.FUZZ_EXTRA_CHECKS ? [process.env.FUZZ_EXTRA_CHECKS] : [])].join(','),
    // Planned operations answer 501 by design (described with `x-svc-availability: planned`).
    '--exclude-by',
    '/x-svc-availability == "planned"',
    '--mode',
    'all',
    '--phases',
    'examples,coverage,fuzzing',
    '--max-examples',
    String(options.maxExamples),
    '--max-time',
    String(target.maxSeconds),
    '--request-timeout',
    '15',
    ...(target.rateLimit ? ['--rate-limit', target.rateLimit] : []),
    // One worker: Hypothesis names filter lambdas by parsing their source with `ast.parse`, and
    // CPython 3.11's parser is not safe across threads (a two-worker run died inside Schemathesis
    // with "AST constructor recursion depth mismatch", no request of the service involved).
    '--workers',
    '1',
    // A fixed seed, so a CI run is repeatable and fails only for a change of the service; explore
    // other inputs with FUZZ_SEED (a finding is then replayed with the same seed).
    '--seed',
    options.seed,
    '--generation-database',
    'none',
    '--report',
    'junit',
    '--report-dir',
    path.join(workDir, 'report'),
    '--no-color',
  ];
  say(
    `${target.name}: schemathesis ${args.map((a) => (a.startsWith('Authorization') ? 'Authorization: Bearer <token>' : a)).join(' ')}`,
  );
  const schemathesis = path.join(root, '.tools/venv/bin/schemathesis');
  let output = '';
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(schemathesis, args, {
      cwd: workDir,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' },
    });
    createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
      process.stdout.write(`${withoutPytestBanner(line)}\n`);
      output += `${line}\n`;
    });
    child.on('error', reject);
    child.on('close', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });
  return {
    name: target.name,
    code,
    operations: /Tested:\s*(\d+)/.exec(output)?.[1] ?? '?',
    cases: /Test cases:\s*\n\s*(.+)/.exec(output)?.[1]?.trim() ?? 'no count printed',
  };
}

/** An interface's closing line: its counts and Schemathesis's verdict. */
export function outcomeLine(outcome: FuzzOutcome): string {
  return `${outcome.name}: ${outcome.operations} operations, test cases: ${outcome.cases}; ${outcome.code === 0 ? 'no failure' : `Schemathesis exited with ${outcome.code}`}`;
}
