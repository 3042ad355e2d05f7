import { describe, expect, test } from 'vitest';
import { createChannelClient, type ProblemError, type RetryOptions } from '../../clients/channel-kit/src/index.ts';

/**
 * The client's retries against a scripted service (the real one answers 429 only past a limit of
 * at least 600 a minute, and 503 only when it fails): which answers are sent again, how long the
 * client waits, and when it gives up.
 */

interface Scripted {
  status: number;
  retryAfter?: string;
}

function scripted(answers: Scripted[], retries?: RetryOptions | false) {
  const sent: { method: string; at: number; body: string }[] = [];
  const started = Date.now();
  const fetch = async (request: Request) => {
    sent.push({ method: request.method, at: Date.now() - started, body: await request.text() });
    const answer = answers.shift() ?? { status: 200 };
    if (answer.status === 200) return Response.json({ channel: 'scripted', accepted: 1 });
    return Response.json(
      {
        type: 'https://x/problems/p',
        code: answer.status === 429 ? 'rate_limited' : 'service_unavailable',
        title: 't',
        status: answer.status,
        instance: 'urn:uuid:0',
        request_id: '0',
      },
      { status: answer.status, headers: answer.retryAfter === undefined ? {} : { 'retry-after': answer.retryAfter } },
    );
  };
  const client = createChannelClient({
    baseUrl: 'https://scripted.test/api/v1/distribution',
    key: 'svc_test_scripted',
    fetch,
    ...(retries === undefined ? {} : { retries }),
  });
  return { client, sent };
}

const problemOf = (call: Promise<unknown>) =>
  call.then(
    () => expect.fail('the call was answered'),
    (error: unknown) => error as ProblemError,
  );

describe('retries', () => {
  test('a GET answered 429 or 503 is sent again after Retry-After, the seconds form or the date form', async () => {
    const { client, sent } = scripted([
      { status: 429, retryAfter: '0' },
      { status: 503, retryAfter: '1' },
      { status: 503, retryAfter: new Date(Date.now() - 1000).toUTCString() },
    ]);
    const { data } = await client.GET('/channel');
    expect(data!.channel).toBe('scripted');
    expect(sent.map((s) => s.method)).toEqual(['GET', 'GET', 'GET', 'GET']);
    expect(sent[2]!.at - sent[1]!.at).toBeGreaterThanOrEqual(950);
  });

  test('a POST is sent again on 429, its body whole each time, never on 503', async () => {
    const body = {
      data: [{ property_id: 'prp_0aaaaaaaaaaaaaaaaaaaaaaaaa', date: '2026-11-20', views: 1, clicks_to_booking: 0 }],
    };
    const limited = scripted([{ status: 429, retryAfter: '0' }]);
    await limited.client.POST('/listing-stats', { body });
    expect(limited.sent.map((s) => [s.method, JSON.parse(s.body)])).toEqual([
      ['POST', body],
      ['POST', body],
    ]);
    const unavailable = scripted([{ status: 503, retryAfter: '0' }]);
    const problem = await problemOf(unavailable.client.POST('/listing-stats', { body }));
    expect([problem.status, problem.code]).toEqual([503, 'service_unavailable']);
    expect(unavailable.sent).toHaveLength(1);
  });

  test('bounded: at most `attempts` retries, no wait beyond `maxDelaySeconds`, none past `maxTotalSeconds`', async () => {
    const endless = Array.from({ length: 10 }, () => ({ status: 429, retryAfter: '0' }));
    const counted = scripted([...endless]);
    const last = await problemOf(counted.client.GET('/channel'));
    expect([last.status, last.code, last.retryAfter]).toEqual([429, 'rate_limited', 0]);
    expect(counted.sent).toHaveLength(4);

    const long = scripted([{ status: 429, retryAfter: '61' }]);
    expect((await problemOf(long.client.GET('/channel'))).retryAfter).toBe(61);
    expect(long.sent).toHaveLength(1);

    const budget = scripted(
      [
        { status: 503, retryAfter: '1' },
        { status: 503, retryAfter: '1' },
      ],
      { maxTotalSeconds: 1.5 },
    );
    expect((await problemOf(budget.client.GET('/channel'))).status).toBe(503);
    expect(budget.sent).toHaveLength(2);

    const none = scripted([{ status: 429, retryAfter: '0' }], false);
    expect((await problemOf(none.client.GET('/channel'))).status).toBe(429);
    expect(none.sent).toHaveLength(1);
  });
});
