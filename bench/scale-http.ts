/**
 * `bench:scale`'s client: one keep-alive HTTPS connection to the service, each request timed from
 * its start to its answer's last byte (the body is parsed after the clock stops), and cases of
 * many requests: a warm-up, then the samples.
 */
import https from 'node:https';

export const WARM_UP = Number(process.env.SCALE_WARM_UP ?? 20);
export const SAMPLES = Number(process.env.SCALE_SAMPLES ?? 200);

export interface Answer {
  status: number;
  ms: number;
  json: Record<string, unknown>;
}

export interface ScaleClient {
  request: (method: string, route: string, token: string, body?: unknown) => Promise<Answer>;
  close: () => void;
}

export function scaleClient(origin: string, ca: string): ScaleClient {
  const agent = new https.Agent({ keepAlive: true, ca, maxSockets: 1 });
  const request: ScaleClient['request'] = (method, route, token, body) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const req = https.request(
        new URL(route, origin),
        {
          method,
          agent,
          headers: {
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
            const ms = performance.now() - started;
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: res.statusCode ?? 0,
              ms,
              json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
            });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  };
  return { request, close: () => agent.destroy() };
}

/** An answer that is not `status` is the bench's bug or the service's failure: the run stops. */
export function expectStatus(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status)
    throw new Error(`${what} answered ${answer.status}, not ${status}: ${JSON.stringify(answer.json).slice(0, 300)}`);
  return answer;
}

/** WARM_UP requests, then SAMPLES timed ones: request `i` counts from 0 over both. */
export async function sampled(what: string, status: number, send: (i: number) => Promise<Answer>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < WARM_UP + SAMPLES; i += 1) {
    const answer = expectStatus(await send(i), status, what);
    if (i >= WARM_UP) samples.push(answer.ms);
  }
  return samples;
}
