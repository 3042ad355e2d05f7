/**
 * The naive baseline's worker (a child process of `npm run bench:push`, so its CPU is its own):
 * `naiveDelivery` workflows whose one activity makes one HTTPS POST to the bench's receiver, on a
 * fresh connection with a TLS context built once (as the service's sender does), and `emptyWorkflow`.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';

const [address, taskQueue, url, caFile] = process.argv.slice(2) as [string, string, string, string];
const secureContext = tls.createSecureContext({ ca: readFileSync(caFile, 'utf8') });

function post(id: string): Promise<number> {
  const body = JSON.stringify({ id, type: 'bench.naive' });
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const options: https.RequestOptions & tls.SecureContextOptions & { secureContext: tls.SecureContext } = {
      protocol: 'https:',
      hostname: target.hostname,
      port: Number(target.port),
      path: target.pathname,
      method: 'POST',
      agent: false,
      secureContext,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'webhook-id': id,
      },
      timeout: 10_000,
    };
    const req = https.request(options, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

const connection = await NativeConnection.connect({ address });
const worker = await Worker.create({
  connection,
  taskQueue,
  workflowsPath: fileURLToPath(new URL('./push-naive-workflow.ts', import.meta.url)),
  activities: { post },
});
const running = worker.run();
console.log('ready');
process.on('SIGTERM', () => worker.shutdown());
await running;
await connection.close();
