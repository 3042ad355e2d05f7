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
import { sample, scrape } from '../support/metrics.ts';
import { devServerClient, uniqueTaskQueue } from '../support/temporal.ts';
import { parseYaml } from '../support/yaml.ts';

// Every metric ops/prometheus/alerts.yml and the Grafana dashboard name is one the service
// exports. The names exported are read as Prometheus reads them: from a real worker process
// (`scripts/worker.ts` on a fresh database and the run's Temporal), its /metrics (the service's
// registry, which the API process serves too, process metrics included) and its Temporal SDK
// metrics. A counter the SDK creates at its first increment is made to appear: the worker is given
// a workflow whose tasks fail. `up` is Prometheus's own series, one per scrape target: the rules
// that read it name the jobs of ops/prometheus/prometheus.yml.

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

/** The scrape jobs of the shipped Prometheus configuration. */
const jobs = (
  parseYaml(readFileSync(path.join(ROOT, 'ops/prometheus/prometheus.yml'), 'utf8')) as {
    scrape_configs: { job_name: string }[];
  }
).scrape_configs.map((config) => config.job_name);

/** Series Prometheus writes itself for every scrape target, not exported by any process. */
const PROMETHEUS_OWN = new Set(['up']);

/** The jobs an expression's `up` selectors name (`job="a"`, `job=~"a|b"`). */
function upJobs(expr: string): string[] {
  return [...expr.matchAll(/\bup\{([^}]*)\}/g)].flatMap(([, matchers]) =>
    [...matchers!.matchAll(/\bjob=~?"([^"]*)"/g)].flatMap(([, value]) => value!.split('|')),
  );
}

/** A workflow type no worker has: its workflow tasks fail, which creates the SDK's failure counter. */
const FAILING_TYPE = 'svcAlertRulesNoSuchWorkflow';

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
  'last_over_time',
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
let sdkExposition = '';
let declared = new Set<string>();

/** Names every alert rule reads. */
const ruleMetrics = [...new Set(rules.flatMap((rule) => metricNames(rule.expr)))];
const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
/** Names a dashboard panel reads, with the panel's title. */
const panelMetrics = panels.flatMap((panel) =>
  (panel.targets ?? []).flatMap((target) => metricNames(target.expr)).map((name) => ({ panel: panel.title, name })),
);
const known = (name: string) => service.has(name) || sdk.has(name);
/** A panel's metric is exported, a failure counter the SDK declares, or Prometheus's own. */
const panelKnown = (name: string) => known(name) || declared.has(name) || PROMETHEUS_OWN.has(name);
/** Rule metrics a process must export: all but Prometheus's own. */
const exportedRuleMetrics = ruleMetrics.filter((name) => !PROMETHEUS_OWN.has(name));
const taskQueue = uniqueTaskQueue('alert-rules');

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
      TEMPORAL_TASK_QUEUE: taskQueue,
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
  // A workflow whose tasks fail on this worker, as a nondeterministic history's would: Temporal
  // retries its task until it is terminated.
  const temporal = await devServerClient();
  const failing = await temporal.workflow.start(FAILING_TYPE, {
    taskQueue,
    workflowId: `alert-rules-failing-task-${Date.now().toString(36)}`,
  });
  onCleanup(() => failing.terminate('alert-rules test done').catch(() => undefined));
  // The SDK creates a metric when it first records it: the workflows a worker starts (the
  // dispatcher, the key rotation) run workflow tasks, local activities and activities in seconds,
  // and the workflow above fails its first task at once. A rule's metric must be exported; a
  // panel's may be a failure counter the SDK declares (activities that fail, say).
  const deadline = Date.now() + 90_000;
  for (;;) {
    service = exported(await scrape(serviceUrl));
    sdkExposition = await scrape(sdkUrl);
    sdk = exported(sdkExposition);
    const missing = [
      ...exportedRuleMetrics.filter((name) => !known(name)),
      ...panelMetrics.map(({ name }) => name).filter((name) => !panelKnown(name)),
    ];
    if (missing.length === 0 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}, 300_000);

describe('alert rules and dashboard', () => {
  test('the expression reader finds metric names, and only them', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le) (rate(svc_x_seconds_bucket{a="b c",d!~"/h.*"}[5m]))) > 1e3 and max(up offset 1h) or absent(temporal_y{w="z"}) - last_over_time(svc_z[1h] offset 1h)',
      ),
    ).toEqual(['svc_x_seconds_bucket', 'up', 'temporal_y', 'svc_z']);
    expect(upJobs('up{job="a"} == 0 or absent(up{instance="x", job=~"b|c"}) or svc_up{job="d"}')).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  test("every metric an alert rule names is exported by the service or by its worker's Temporal SDK, the workflow-task failure counter once a task failed", () => {
    expect(exportedRuleMetrics.length).toBeGreaterThan(8);
    // Both sources answered with what they should: the service's own and the SDK's.
    expect(service.has('svc_api_requests_total')).toBe(true);
    expect(sdk.has('temporal_worker_task_slots_available')).toBe(true);
    expect(exportedRuleMetrics.filter((name) => !known(name))).toEqual([]);
    // SvcWorkflowTasksFailing groups by these labels: the failing workflow's series carries them.
    expect(
      sample(sdkExposition, 'temporal_workflow_task_execution_failed_total', {
        workflow_type: FAILING_TYPE,
        failure_reason: 'WorkflowError',
        task_queue: taskQueue,
      }),
    ).toBeGreaterThan(0);
  });

  test('the rules read `up` only of the jobs ops/prometheus/prometheus.yml scrapes, and every job has a rule for its target down', () => {
    expect(jobs).toEqual(['distribution-api', 'distribution-worker', 'distribution-worker-sdk']);
    const read = rules.flatMap((rule) => upJobs(rule.expr));
    expect(read.filter((job) => !jobs.includes(job))).toEqual([]);
    expect(jobs.filter((job) => !read.includes(job))).toEqual([]);
    // Nothing else Prometheus writes itself is taken for an exported metric.
    expect(ruleMetrics.filter((name) => PROMETHEUS_OWN.has(name))).toEqual(['up']);
  });

  test("every metric a dashboard panel names is exported, is a counter the installed Temporal SDK declares, or is Prometheus's `up` of a shipped job", () => {
    // Failure counters appear once something fails; the SDK's source says they exist.
    expect(declared.has('temporal_activity_execution_failed_total')).toBe(true);
    expect(panels.length).toBeGreaterThan(10);
    expect(panelMetrics.filter(({ name }) => !panelKnown(name)).map(({ panel, name }) => `${panel}: ${name}`)).toEqual(
      [],
    );
    const panelJobs = panels.flatMap((panel) => (panel.targets ?? []).flatMap((target) => upJobs(target.expr)));
    expect(panelJobs.length).toBeGreaterThan(0);
    expect(panelJobs.filter((job) => !jobs.includes(job))).toEqual([]);
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
