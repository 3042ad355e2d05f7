/**
 * The client of `npm run bench:bodies`, a child process of bench/bodies.ts so that none of its
 * CPU counts as the server's: on each message it builds the body described, sends it, and (when
 * asked) meanwhile probes `GET /channel` over its own connection, one request after another,
 * reporting each probe's latency. Bodies go only to the loopback address the parent names.
 */
import https from 'node:https';
import { buildBody, type BodySpec } from './bodies-shapes.ts';

export interface ClientInit {
  url: string;
  ca: string;
  probeKey: string;
}

export interface CaseMessage {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body to build and send; none for a request without one. */
  spec?: BodySpec;
  probe: boolean;
  /** How long the probe runs alone before the request goes (default 20 ms: its connection open). */
  probeAloneMs?: number;
}

export interface CaseResult {
  status: number;
  /** The answer's `code` (problems and the integration interface's errors) or its first error's rule. */
  code: string | undefined;
  rule: string | undefined;
  bytes: number;
  probes: number[];
}

const PROBE_PATH = '/api/v1/distribution/channel';
/** A probe is sent at most this often, so a fast case still sees a few. */
const PROBE_GAP_MS = 5;

let init: ClientInit | undefined;
const bodyAgent = new https.Agent({ keepAlive: true, maxSockets: 1 });
const probeAgent = new https.Agent({ keepAlive: true, maxSockets: 1 });

function send(
  agent: https.Agent,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<{ status: number; text: string }> {
  const { url, ca } = init!;
  return new Promise((resolve, reject) => {
    // Content-Length always: Node's client sends a GET's body unframed otherwise.
    const framed = body ? { ...headers, 'content-length': String(body.length) } : headers;
    const req = https.request(new URL(path, url), { method, headers: framed, ca, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.setTimeout(120_000, () => req.destroy(new Error(`${method} ${path}: no answer in 120 s`)));
    req.end(body);
  });
}

async function probeUntil(done: { value: boolean }, latencies: number[]): Promise<void> {
  const headers = { authorization: `Bearer ${init!.probeKey}` };
  while (!done.value) {
    const started = performance.now();
    const { status } = await send(probeAgent, 'GET', PROBE_PATH, headers);
    if (status !== 200) throw new Error(`the probe was answered ${status}`);
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, PROBE_GAP_MS));
  }
}

async function runCase(message: CaseMessage): Promise<CaseResult> {
  const body = message.spec ? buildBody(message.spec) : undefined;
  const probes: number[] = [];
  const done = { value: false };
  const probing = message.probe ? probeUntil(done, probes) : Promise.resolve();
  // The probe's connection is open and answering before the body goes.
  if (message.probe) await new Promise((resolve) => setTimeout(resolve, message.probeAloneMs ?? 20));
  // A connection the service closes instead of answering is an answer too (status 0, the error's code).
  const answer = await send(bodyAgent, message.method, message.path, message.headers, body).catch(
    (error: NodeJS.ErrnoException) => ({ status: 0, text: JSON.stringify({ code: error.code ?? 'closed' }) }),
  );
  done.value = true;
  await probing;
  let code: string | undefined;
  let rule: string | undefined;
  try {
    const json = JSON.parse(answer.text) as { code?: string; errors?: unknown };
    code = json.code;
    if (Array.isArray(json.errors)) rule = (json.errors[0] as { code?: string } | undefined)?.code;
  } catch {
    // An HTML page (the host forms): the status says enough.
  }
  return { status: answer.status, code, rule, bytes: body?.length ?? 0, probes };
}

process.on('message', (message: { init?: ClientInit; run?: CaseMessage }) => {
  if (message.init) {
    init = message.init;
    process.send!({ ready: true });
    return;
  }
  if (message.run)
    runCase(message.run).then(
      (result) => process.send!({ result }),
      (error: unknown) => process.send!({ error: String(error) }),
    );
});
