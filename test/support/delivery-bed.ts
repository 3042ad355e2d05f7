import type { MikroORM } from '@mikro-orm/postgresql';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from './api-bed.ts';
import type { TestApi } from './api.ts';
import { onCleanup } from './cleanup.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { timeSkippingEnvironment } from './time-skipping.ts';
import { createTestWorker } from './worker.ts';

/**
 * Webhook deliveries on the time-skipping server, for one test file: the file's own time-skipping
 * environment, a real HTTPS receiver, a real SMTP receiver, and the API on a fresh database with
 * the system clock and a task queue of the file's own. The dispatcher's periodic poll is pushed 30
 * days out, so only what a test does dispatches. All of it is torn down after the file's tests.
 */
export interface DeliveryBed {
  env: TestWorkflowEnvironment;
  orm: MikroORM;
  api: TestApi;
  receiver: Receiver;
  taskQueue: string;
  /** Every mail the SMTP receiver got, as sent (headers and body), in the order they came. */
  mails: string[];
  /**
   * A worker for one test, sending webhooks to the receiver and mail to the SMTP receiver. Each
   * test starts its own: without a workflow cache (every task replays its history) no task waits
   * for a stopped worker's sticky queue.
   */
  worker: () => Promise<Worker>;
}

/** A plain SMTP server on a free local port that keeps every mail it gets in `mails`. */
async function mailReceiver(mails: string[]): Promise<number> {
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
  return (smtp.server.address() as AddressInfo).port;
}

/** The bed, its task queue named from `taskQueue`. Call it once, in the file's `beforeAll`. */
export async function deliveryTestBed(taskQueue: string): Promise<DeliveryBed> {
  const env = await timeSkippingEnvironment();
  const receiver = await startReceiver();
  const mails: string[] = [];
  const smtpPort = await mailReceiver(mails);
  const bed = await apiTestBed({
    clock: systemClock,
    temporal: env.client,
    taskQueue,
    receiver,
    env: { DISPATCH_POLL_SECONDS: String(30 * 86_400) },
  });
  const { api, orm } = bed;
  const queue = bed.taskQueue!;
  const worker = () =>
    createTestWorker(env, orm, {
      taskQueue: queue,
      replayEveryTask: true,
      webhooks: { allowLocal: true, caFile: receiver.caFile },
      mail: {
        smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
        from: 'Distribution Service <no-reply@distribution.test>',
        allowPlain: true,
      },
    });
  return { env, orm, api, receiver, taskQueue: queue, mails, worker };
}
