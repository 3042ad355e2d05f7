/**
 * Child process of test/infra/local-activity-eviction.test.ts: runs ten workflows of local
 * activities on one worker tuned as argv[3] says, against the Temporal server at argv[2], and
 * prints the SDK core's log lines that report a lost local activity, as JSON. A process of its
 * own because the core's logger is installed once per process.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { WORKER_TUNING } from '../../../app/worker.ts';
import { NO_CACHE } from '../worker-tuning.ts';

const TUNINGS: Record<string, Partial<WorkerOptions>> = {
  production: WORKER_TUNING,
  'test-without-cache': NO_CACHE,
  'no-cache-concurrent': { maxCachedWorkflows: 0, maxConcurrentWorkflowTaskExecutions: 10 },
};
// The workflow task timeout: the server's default of 10 s for the tunings that must report
// nothing, so that a machine loaded by other work (a task late by seconds, then retried) is not
// taken for the SDK's fault; 2 s for the reproduction, whose lost results then recover quickly.
const TASK_TIMEOUT: Record<string, string> = { 'no-cache-concurrent': '2 seconds' };

const [address, tuning] = process.argv.slice(2) as [string, string];
const reported: string[] = [];
// The first report is enough: the lost results' workflow tasks then take their timeouts to recover.
const firstReport = Promise.withResolvers<void>();
Runtime.install({
  logger: new DefaultLogger('WARN', (entry) => {
    if (!/SDK bug|untracked local activity/.test(entry.message)) return;
    reported.push(`${entry.level} ${entry.message}`);
    firstReport.resolve();
  }),
  telemetryOptions: { logging: { forward: {}, filter: 'WARN' } },
});

const connection = await NativeConnection.connect({ address });
const clientConnection = await Connection.connect({ address });
const client = new Client({ connection: clientConnection });
const taskQueue = `eviction-${tuning}-${process.pid}`;
const worker = await Worker.create({
  connection,
  taskQueue,
  workflowsPath: new URL('./workflows.ts', import.meta.url).pathname,
  activities: { pause: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) },
  ...TUNINGS[tuning],
});
await worker.runUntil(async () => {
  const runs = Array.from({ length: 10 }, (_, i) =>
    client.workflow.execute('threeLocalPauses', {
      taskQueue,
      workflowId: `${taskQueue}-${i}`,
      args: [200],
      workflowExecutionTimeout: '2 minutes',
      workflowTaskTimeout: TASK_TIMEOUT[tuning] ?? '10 seconds',
    }),
  );
  await Promise.race([Promise.all(runs), firstReport.promise]);
});
await clientConnection.close();
await connection.close();
process.stdout.write(`${JSON.stringify({ reported })}\n`);
