/**
 * The channel side of `bench:availability`, in a process of its own (forked by the bench, its
 * job as the first message), so the server's process does only the server's work and its CPU is
 * the server's: this process's main thread pulls the pages over keep-alive TLS, asking for one
 * content coding. Linked (the default), it asks for the next page as soon as a page's headers
 * link it (`Link: rel="next"`), on a second connection while the body still arrives; sequential,
 * it reads each body's `next_cursor` first, on one connection. Either way it checks that the link
 * and the body name the same cursor, decodes each page and hands it (its memory transferred, not
 * copied) to a checker thread (`availability-check.ts`), which verifies it.
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
  /** Every this many pages, one is also read with `JSON.parse` (see `availability-check.ts`). */
  fullEvery: number;
  /** Stop after this many pages (the whole pull when null). */
  maxPages: number | null;
  /** `linked`: follow `Link: rel="next"` on two connections; `sequential`: the body's cursor, one connection. */
  mode: 'linked' | 'sequential';
  today: string;
}

export interface PullReport {
  pages: number;
  seconds: number;
  latencyMs: number[];
  wireBytes: number[];
  decodeMs: number[];
  checked: {
    received: number;
    properties: number;
    nightsPerProperty: number[];
    planIds: number;
    pageNights: number[];
    checkMs: number[];
    fullMs: number[];
  };
  /** CPU of this process over the pull (from its first timed request), in ms. */
  clientCpuMs: number;
}

let job: PullRequest;
let agent: https.Agent;

interface Page {
  status: number;
  /** The next page's path from `Link: <…>; rel="next"`, null when none is linked. */
  link: string | null;
  body: Promise<{ body: Buffer; wire: number; encoding: string | undefined; decodeMs: number }>;
}

/** Resolves when the answer's headers arrive; its body follows in `body`. */
function get(path: string): Promise<Page> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${job.key}` };
    if (job.coding !== 'identity') headers['accept-encoding'] = job.coding;
    https
      .get(new URL(path, job.url), { agent, headers }, (res) => {
        const link = /^<([^>]+)>; rel="next"$/.exec(String(res.headers.link ?? ''))?.[1] ?? null;
        const body = new Promise<Awaited<Page['body']>>((done, fail) => {
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
            const decoded =
              encoding === 'zstd'
                ? zlib.zstdDecompressSync(raw)
                : encoding === 'br'
                  ? zlib.brotliDecompressSync(raw)
                  : encoding === 'gzip'
                    ? zlib.gunzipSync(raw)
                    : raw;
            done({ body: decoded, wire, encoding, decodeMs: performance.now() - started });
          });
          res.on('error', fail);
        });
        body.catch(() => undefined); // awaited by the pull; a failure is reported there
        resolve({ status: res.statusCode ?? 0, link, body });
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

const base = (limit: number) => `/api/v1/distribution/availability?limit=${limit}`;

/**
 * The pull. `linked`: the next page is asked for as soon as this one's headers name it (`Link:
 * rel="next"`), on the agent's second connection, while this body is still arriving; otherwise
 * (`sequential`) once this body has arrived and its `next_cursor` is read, on one connection.
 */
async function pull(): Promise<PullReport> {
  const checker = new Worker(new URL('./availability-check.ts', import.meta.url), {
    workerData: { today: job.today, fullEvery: job.fullEvery },
  });
  const checked = new Promise<PullReport['checked'] & { cpuMs: number }>((resolve, reject) => {
    checker.on('message', (message: { error?: string }) =>
      message.error ? reject(new Error(message.error)) : resolve(message as never),
    );
    checker.on('error', reject);
  });
  // The connections and TLS sessions, not timed.
  await Promise.all(
    Array.from({ length: job.mode === 'linked' ? 2 : 1 }, () => get(base(1)).then((page) => page.body)),
  );
  const latencyMs: number[] = [];
  const wireBytes: number[] = [];
  const decodeMs: number[] = [];
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const request = (path: string): { sent: number; page: Promise<Page> } => {
    const sent = performance.now();
    return { sent, page: get(path) };
  };
  const more = () => job.maxPages === null || latencyMs.length + 1 < job.maxPages;
  let next: ReturnType<typeof request> | null = request(base(job.limit));
  while (next) {
    const { sent, page: pending } = next;
    const page: Page = await pending;
    // Linked: the following request leaves now, before this body is read.
    next = job.mode === 'linked' && page.link && more() ? request(page.link) : null;
    const res = await page.body;
    if (page.status !== 200)
      throw new Error(`GET /availability answered ${page.status}: ${res.body.subarray(0, 500).toString()}`);
    if ((res.encoding ?? 'identity') !== job.coding)
      throw new Error(`asked for ${job.coding}, got ${res.encoding ?? 'identity'}`);
    latencyMs.push(performance.now() - sent);
    wireBytes.push(res.wire);
    decodeMs.push(res.decodeMs);
    const cursor = cursorOf(res.body);
    const linked: string | null = page.link === null ? null : new URL(page.link, job.url).searchParams.get('cursor');
    if (linked !== cursor) throw new Error(`the Link header names cursor ${linked}, the body ${cursor}`);
    if (job.mode === 'sequential')
      next = cursor && more() ? request(`${base(job.limit)}&cursor=${encodeURIComponent(cursor)}`) : null;
    // A page's own memory moves to the checker; a small one shares Node's pool, which cannot move,
    // so it goes as a copy of its own.
    const body =
      res.body.byteOffset === 0 && res.body.byteLength === res.body.buffer.byteLength
        ? res.body
        : new Uint8Array(res.body);
    checker.postMessage({ page: body.buffer }, [body.buffer as ArrayBuffer]);
  }
  checker.postMessage({ done: true });
  const report = await checked;
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  await checker.terminate();
  agent.destroy();
  const { cpuMs: _checkerCpuMs, ...rest } = report;
  return {
    pages: latencyMs.length,
    seconds,
    latencyMs,
    wireBytes,
    decodeMs,
    checked: rest,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
  };
}

process.once('message', (message: PullRequest) => {
  job = message;
  agent = new https.Agent({ keepAlive: true, ca: job.ca, maxSockets: job.mode === 'linked' ? 2 : 1 });
  pull().then(
    (report) => process.send!(report, () => process.exit(0)),
    (error: unknown) => process.send!({ error: String(error) }, () => process.exit(1)),
  );
});
