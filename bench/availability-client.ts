/**
 * The channel side of `bench:availability`, in a process of its own (forked by the bench, its
 * job as the first message), so the server's process does only the server's work and its CPU is
 * the server's: this process's main thread pulls the pages over its own keep-alive TLS connection, asking
 * for one content coding, decodes each page and reads its `next_cursor`, sends the next request
 * at once, and hands the page (its memory transferred, not copied) to a checker thread
 * (`availability-check.ts`), which parses and verifies it while the next page is being built.
 * It answers the run's figures and its own CPU (both threads, its garbage collector and all).
 */
import https from 'node:https';
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';

export interface PullRequest {
  url: string;
  key: string;
  ca: string;
  limit: number;
  coding: 'identity' | 'gzip' | 'br' | 'zstd';
  /** Stop after this many pages (the whole pull when null). */
  maxPages: number | null;
  today: string;
}

export interface PullReport {
  pages: number;
  seconds: number;
  latencyMs: number[];
  wireBytes: number[];
  decodeMs: number[];
  checked: { received: number; properties: number; nightsPerProperty: number[]; planIds: number; pageNights: number[]; checkMs: number[] };
  /** CPU of this process over the pull (from its first timed request), in ms. */
  clientCpuMs: number;
}

let job: PullRequest;
let agent: https.Agent;

function get(path: string): Promise<{ status: number; body: Buffer; wire: number; encoding: string | undefined; decodeMs: number }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${job.key}` };
    if (job.coding !== 'identity') headers['accept-encoding'] = job.coding;
    https
      .get(new URL(`/api/v1/distribution${path}`, job.url), { agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        let wire = 0;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          wire += chunk.length;
        });
        res.on('end', () => {
          const encoding = res.headers['content-encoding'];
          const raw = Buffer.concat(chunks, wire);
          const started = performance.now();
          const body =
            encoding === 'zstd' ? zlib.zstdDecompressSync(raw) : encoding === 'br' ? zlib.brotliDecompressSync(raw) : encoding === 'gzip' ? zlib.gunzipSync(raw) : raw;
          resolve({ status: res.statusCode ?? 0, body, wire, encoding, decodeMs: performance.now() - started });
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The page ends with its cursor: only its last bytes are read here. */
function cursorOf(body: Buffer): string | null {
  const tail = /"next_cursor":(null|"[^"]*")\}$/.exec(body.subarray(Math.max(0, body.length - 512)).toString('latin1'));
  if (!tail) throw new Error('a page without next_cursor at its end');
  return JSON.parse(tail[1]!) as string | null;
}

async function pull(): Promise<PullReport> {
  const checker = new Worker(new URL('./availability-check.ts', import.meta.url), { workerData: { today: job.today } });
  const checked = new Promise<PullReport['checked'] & { cpuMs: number }>((resolve, reject) => {
    checker.on('message', (message: { error?: string }) => (message.error ? reject(new Error(message.error)) : resolve(message as never)));
    checker.on('error', reject);
  });
  await get('/availability?limit=1'); // the connection and TLS session, not timed
  const latencyMs: number[] = [];
  const wireBytes: number[] = [];
  const decodeMs: number[] = [];
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const request = (cursor: string | null) => {
    const sent = performance.now();
    return get(`/availability?limit=${job.limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).then((res) => ({ ...res, ms: performance.now() - sent }));
  };
  let next: ReturnType<typeof request> | null = request(null);
  while (next) {
    const res = await next;
    if (res.status !== 200) throw new Error(`GET /availability answered ${res.status}: ${res.body.subarray(0, 500).toString()}`);
    if ((res.encoding ?? 'identity') !== job.coding) throw new Error(`asked for ${job.coding}, got ${res.encoding ?? 'identity'}`);
    latencyMs.push(res.ms);
    wireBytes.push(res.wire);
    decodeMs.push(res.decodeMs);
    const cursor = cursorOf(res.body);
    // The next page is asked for before this one is handed over for checking.
    next = cursor && (job.maxPages === null || latencyMs.length < job.maxPages) ? request(cursor) : null;
    const body = res.body.byteOffset === 0 && res.body.byteLength === res.body.buffer.byteLength ? res.body : Buffer.from(res.body);
    checker.postMessage({ page: body.buffer }, [body.buffer as ArrayBuffer]);
  }
  checker.postMessage({ done: true });
  const report = await checked;
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  await checker.terminate();
  agent.destroy();
  const { cpuMs: _checkerCpuMs, ...rest } = report;
  return { pages: latencyMs.length, seconds, latencyMs, wireBytes, decodeMs, checked: rest, clientCpuMs: (cpu.user + cpu.system) / 1000 };
}

process.once('message', (message: PullRequest) => {
  job = message;
  agent = new https.Agent({ keepAlive: true, ca: job.ca, maxSockets: 1 });
  pull().then(
    (report) => process.send!(report, () => process.exit(0)),
    (error: unknown) => process.send!({ error: String(error) }, () => process.exit(1)),
  );
});
