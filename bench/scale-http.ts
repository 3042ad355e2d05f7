/**
 * `bench:scale`'s client: one keep-alive HTTPS connection to a size's service, each request timed
 * from its start to its answer's last byte (the body is parsed after the clock stops), and a
 * case's requests to every size, interleaved: a warm-up, then the samples.
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

/** One request of a case, the `i`-th (from 0, warm-up included). */
export type Send = (i: number) => Promise<Answer>;

/**
 * A case at every size, interleaved: WARM_UP rounds, then SAMPLES timed ones, each round one
 * request to every size's service, in an order that turns with the round. A machine shared with
 * other work slows all sizes alike over the case's span, so their ratio holds where their own
 * figures do not; one size after the other, a load that came or went between them was read as
 * growth. Answers each size's samples, in milliseconds.
 */
export async function interleaved(
  what: string,
  sends: ReadonlyMap<number, Send>,
  status = 200,
): Promise<Map<number, number[]>> {
  const sizes = [...sends.keys()];
  const samples = new Map(sizes.map((size) => [size, [] as number[]]));
  for (let i = 0; i < WARM_UP + SAMPLES; i += 1) {
    for (let k = 0; k < sizes.length; k += 1) {
      const size = sizes[(i + k) % sizes.length]!;
      const answer = expectStatus(await sends.get(size)!(i), status, `${what} at ${size}x`);
      if (i >= WARM_UP) samples.get(size)!.push(answer.ms);
    }
  }
  return samples;
}
