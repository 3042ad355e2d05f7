import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { ROOT, sleep } from './servers.ts';

/** A real `scripts/api.ts` or `scripts/worker.ts` process, its output kept in a log file. */
export interface ServiceProcess {
  name: string;
  pid: number;
  logFile: string;
  exited: () => boolean;
  log: () => string;
  kill: (signal: NodeJS.Signals) => Promise<void>;
}

/**
 * Several service processes run on one machine here: each serves its metrics on a port of its own
 * choosing, and none starts the Temporal SDK's exporter (its default port would be taken twice).
 */
const SIDE_BY_SIDE = { METRICS_PORT: '0', TEMPORAL_METRICS_PORT: 'off' };

/** What a chaos run's service processes share: the servers, secrets and files of the run. */
export interface ChaosServiceSetting {
  /** The run's directory: it holds the API's `api.crt` and `api.key`, and each process's data directory. */
  dir: string;
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  serverSecret: string;
  platformToken: string;
  /** The CA of the HTTPS receiver the webhooks go to (on loopback: local addresses allowed). */
  receiverCaFile: string;
  /** `SVC_ENVIRONMENT` (`sandbox` for the churn); the service's default when absent. */
  environment?: 'sandbox';
}

/**
 * The environment of one process of a chaos run, by its name (`api`, `worker-1`, `admin`): TLS on
 * loopback, the dispatcher polling every 3 s, and a data directory of the process's own. An API
 * adds its `PORT`.
 */
export function chaosServiceEnvironment(setting: ChaosServiceSetting) {
  return (name: string): Record<string, string> => ({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    ...(setting.environment === undefined ? {} : { SVC_ENVIRONMENT: setting.environment }),
    DATABASE_URL: setting.databaseUrl,
    TEMPORAL_ADDRESS: setting.temporalAddress,
    TEMPORAL_TASK_QUEUE: setting.taskQueue,
    SERVER_SECRET: setting.serverSecret,
    PLATFORM_TOKEN: setting.platformToken,
    WEBHOOK_ALLOW_LOCAL: 'true',
    WEBHOOK_CA_FILE: setting.receiverCaFile,
    TLS_CERT: path.join(setting.dir, 'api.crt'),
    TLS_KEY: path.join(setting.dir, 'api.key'),
    HOST: '127.0.0.1',
    HTTP_PORT: '0',
    DISPATCH_POLL_SECONDS: '3',
    DATA_DIR: path.join(setting.dir, `data-${name}`),
  });
}

export function startServiceProcess(
  name: string,
  script: 'scripts/api.ts' | 'scripts/worker.ts',
  env: Record<string, string>,
  dir: string,
): ServiceProcess {
  const logFile = path.join(dir, `${name}.log`);
  const output = createWriteStream(logFile, { flags: 'a' });
  const child: ChildProcess = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: { ...process.env, ...SIDE_BY_SIDE, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(output, { end: false });
  child.stderr!.pipe(output, { end: false });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  child.on('exit', (code, signal) =>
    output.end(`\n[${name} exited: code ${String(code)}, signal ${String(signal)}]\n`),
  );
  return {
    name,
    pid: child.pid!,
    logFile,
    exited,
    log: () => {
      try {
        return readFileSync(logFile, 'utf8');
      } catch {
        return '';
      }
    },
    kill: async (signal) => {
      if (exited()) return;
      const done = once(child, 'exit');
      child.kill(signal);
      if (await Promise.race([done.then(() => true), sleep(10_000).then(() => false)])) return;
      child.kill('SIGKILL');
      await Promise.race([done, sleep(5000)]);
    },
  };
}

/** Waits (bounded) until the process's log holds `text`; fails early when it exited. */
export async function waitForLog(process_: ServiceProcess, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!process_.log().includes(text)) {
    if (process_.exited()) throw new Error(`${process_.name} exited before "${text}":\n${process_.log().slice(-3000)}`);
    if (Date.now() > deadline)
      throw new Error(`${process_.name}: no "${text}" after ${timeoutMs} ms:\n${process_.log().slice(-3000)}`);
    await sleep(200);
  }
}

/** Waits (bounded) until the API process answers GET /health/live; fails early when it exited. */
export async function waitForLive(process_: ServiceProcess, client: ApiClient, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (process_.exited())
      throw new Error(`${process_.name} exited before it listened:\n${process_.log().slice(-3000)}`);
    const answer = await client.call('GET', '/health/live', '').catch(() => undefined);
    if (answer?.status === 200) return;
    if (Date.now() > deadline)
      throw new Error(`${process_.name}: not live after ${timeoutMs} ms:\n${process_.log().slice(-3000)}`);
    await sleep(200);
  }
}

export interface Answer {
  status: number;
  json: unknown;
  text: string;
}

/** HTTPS calls to one API process, trusting exactly its certificate, with a bounded wait. */
export function apiClient(baseUrl: string, ca: string) {
  const agent = new https.Agent({ keepAlive: true, ca, maxSockets: 8 });
  const call = (
    method: string,
    route: string,
    token: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(route, baseUrl),
        {
          method,
          agent,
          headers: {
            ...headers,
            authorization: `Bearer ${token}`,
            ...(payload
              ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
              : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = text ? JSON.parse(text) : undefined;
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, json, text });
          });
        },
      );
      req.on('error', reject);
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${route}: no answer in 30 s`)));
      req.end(payload);
    });
  };
  return { url: baseUrl, call, close: () => agent.destroy() };
}

export type ApiClient = ReturnType<typeof apiClient>;

/**
 * A write that must land: answers of 5xx and broken connections (a server restarting) are tried
 * again, with a pause, until `deadline`; a 4xx is a mistake of the run and fails at once.
 */
export async function writeUntilAccepted(
  client: ApiClient,
  method: string,
  route: string,
  token: string,
  body: unknown,
  deadline: number,
): Promise<{ retries: number }> {
  let retries = 0;
  for (;;) {
    let problem: string;
    try {
      const answer = await client.call(method, route, token, body);
      if (answer.status < 300) return { retries };
      if (answer.status < 500 && answer.status !== 429)
        throw new Error(`${method} ${route} answered ${answer.status}: ${answer.text}`);
      problem = `answered ${answer.status}`;
    } catch (error) {
      if (error instanceof Error && error.message.includes(' answered 4')) throw error;
      problem = String(error);
    }
    if (Date.now() > deadline)
      throw new Error(`${method} ${route} not accepted before the deadline (last: ${problem})`);
    retries += 1;
    await sleep(Math.min(2000, 100 * retries));
  }
}
