import { mkdtemp, readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { freePort } from '../../scripts/chaos/servers.ts';
import { startServiceProcess, waitForLog } from '../../scripts/chaos/service.ts';
import { TEST_PLATFORM_TOKEN, TEST_SERVER_SECRET } from '../support/api.ts';
import { onCleanup } from '../support/cleanup.ts';
import { freshDatabase } from '../support/database.ts';
import { scrape } from '../support/metrics.ts';
import { uniqueTaskQueue } from '../support/temporal.ts';
import { parseYaml } from '../support/yaml.ts';

// Every metric ops/prometheus/alerts.yml and the Grafana dashboard name is one the service
// exports. The names exported are read as Prometheus reads them: from a real worker process
// (`scripts/worker.ts` on a fresh database and the run's Temporal), its /metrics (the service's
// registry, which the API process serves too, process metrics included) and its Temporal SDK
// metrics.

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
const rules = (
  parseYaml(readFileSync(path.join(ROOT, 'ops/prometheus/alerts.yml'), 'utf8')) as {
    groups: { name: string; rules: Rule[] }[];
  }
).groups.flatMap((group) => group.rules);

interface Panel {
  title: string;
  type: string;
  targets?: { expr: string }[];
}
const dashboard = JSON.parse(readFileSync(path.join(ROOT, 'ops/grafana/distribution-service.json'), 'utf8')) as {
  panels: Panel[];
};

/** PromQL's own words: functions, aggregations, keywords. Any other word of an expression is a metric's name. */
const PROMQL = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'count',
  'topk',
  'bottomk',
  'rate',
  'irate',
  'increase',
  'delta',
  'histogram_quantile',
  'absent',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
]);

/** The metric names a PromQL expression reads. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  // A word right after a digit or a dot is part of a number or a duration (0.5, 1h, 1e3).
  const words = bare.match(/(?<![\w.])[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  return [...new Set(words.filter((word) => !PROMQL.has(word)))];
}

/** The series names an exposition's `# TYPE` lines declare (a histogram's as _bucket, _sum and _count). */
function exported(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram' || type === 'summary') {
      for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
      if (type === 'histogram') names.add(`${name}_bucket`);
      else names.add(name!);
    } else names.add(name!);
  }
  return names;
}

/**
 * The SDK counters the installed Temporal SDK declares (its Core's source, shipped in the
 * package), as its exporter names them: some, failures among them, appear only once counted.
 */
async function sdkDeclaredCounters(): Promise<Set<string>> {
  const source = await readFile(
    path.join(ROOT, 'node_modules/@temporalio/core-bridge/sdk-core/crates/sdk-core/src/telemetry/metrics.rs'),
    'utf8',
  );
  const names = new Set<string>();
  for (const [, name] of source.matchAll(/counter(?:_with_in_mem)?\(\s*MetricParameters\s*\{\s*name:\s*"([a-z_]+)"/g))
    names.add(`temporal_${name}_total`);
  return names;
}

let service = new Set<string>();
let sdk = new Set<string>();
let declared = new Set<string>();

/** Names every alert rule reads. */
const ruleMetrics = [...new Set(rules.flatMap((rule) => metricNames(rule.expr)))];
const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
/** Names a dashboard panel reads, with the panel's title. */
const panelMetrics = panels.flatMap((panel) =>
  (panel.targets ?? []).flatMap((target) => metricNames(target.expr)).map((name) => ({ panel: panel.title, name })),
);
const known = (name: string) => service.has(name) || sdk.has(name);

beforeAll(async () => {
  declared = await sdkDeclaredCounters();
  const { url } = await freshDatabase();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'alert-rules-'));
  const [metricsPort, sdkPort] = [await freePort(), await freePort()];
  const worker = startServiceProcess(
    'worker',
    'scripts/worker.ts',
    {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: uniqueTaskQueue('alert-rules'),
      SERVER_SECRET: TEST_SERVER_SECRET,
      PLATFORM_TOKEN: TEST_PLATFORM_TOKEN,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      TEMPORAL_METRICS_PORT: String(sdkPort),
      DATA_DIR: path.join(dir, 'data'),
    },
    dir,
  );
  onCleanup(() => worker.kill('SIGTERM'));
  await waitForLog(worker, '"worker running"', 150_000);
  const serviceUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const sdkUrl = `http://127.0.0.1:${sdkPort}/metrics`;
  // The SDK creates a metric when it first records it: the workflows a worker starts (the
  // dispatcher, the key rotation) run workflow tasks, local activities and activities in seconds.
  const deadline = Date.now() + 90_000;
  for (;;) {
    service = exported(await scrape(serviceUrl));
    sdk = exported(await scrape(sdkUrl));
    const missing = [...ruleMetrics, ...panelMetrics.map(({ name }) => name)].filter(
      (name) => !known(name) && !declared.has(name),
    );
    if (missing.length === 0 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}, 300_000);

describe('alert rules and dashboard', () => {
  test('the expression reader finds metric names, and only them', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le) (rate(svc_x_seconds_bucket{a="b c",d!~"/h.*"}[5m]))) > 1e3 and max(up offset 1h) or absent(temporal_y{w="z"})',
      ),
    ).toEqual(['svc_x_seconds_bucket', 'up', 'temporal_y']);
  });

  test("every metric an alert rule names is exported by the service or by its worker's Temporal SDK", () => {
    expect(ruleMetrics.length).toBeGreaterThan(8);
    // Both sources answered with what they should: the service's own and the SDK's.
    expect(service.has('svc_api_requests_total')).toBe(true);
    expect(sdk.has('temporal_worker_task_slots_available')).toBe(true);
    expect(ruleMetrics.filter((name) => !known(name))).toEqual([]);
  });

  test('every metric a dashboard panel names is exported, or is a counter the installed Temporal SDK declares', () => {
    // Failure counters appear once something fails; the SDK's source says they exist.
    expect(declared.has('temporal_activity_execution_failed_total')).toBe(true);
    expect(panels.length).toBeGreaterThan(10);
    expect(
      panelMetrics
        .filter(({ name }) => !known(name) && !declared.has(name))
        .map(({ panel, name }) => `${panel}: ${name}`),
    ).toEqual([]);
    expect(panels.filter((panel) => (panel.targets ?? []).length === 0).map((panel) => panel.title)).toEqual([]);
  });

  test('every alert says how urgent it is and points at its entry in docs/operations.md', async () => {
    const docs = await readFile(path.join(ROOT, 'docs/operations.md'), 'utf8');
    const anchors = new Set(
      [...docs.matchAll(/^#{2,5} (.+)$/gm)].map(([, title]) =>
        title!
          .toLowerCase()
          .replace(/[^\w\s-]/g, '')
          .replace(/\s/g, '-'),
      ),
    );
    for (const rule of rules) {
      expect(['page', 'ticket', 'info'], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.runbook, rule.alert).toBe(`docs/operations.md#${rule.alert.toLowerCase()}`);
      expect(anchors.has(rule.alert.toLowerCase()), `docs/operations.md has no heading ${rule.alert}`).toBe(true);
    }
  });
});
