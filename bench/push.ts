/**
 * `npm run bench:push`: the push path's throughput and latency against a naive baseline, on one
 * file-backed Temporal dev server, PostgreSQL, and an HTTPS receiver on this machine.
 *
 * (a) naive: a trivial workflow running one regular activity that makes one HTTPS POST, started
 *     as fast as the client can, on a worker of its own (a child process).
 * (b) the service: platform write (the real API) → event → dispatcher → delivery workflow →
 *     signed POST, verified by the receiver with the `standardwebhooks` library; the real worker
 *     (`scripts/worker.ts`) as a child process. The writes of a run are made while the worker is
 *     stopped; the worker then drains them, so the rate is the pipeline's, not the writer's. A
 *     worker starts once the server no longer counts the stopped one as polling (push-workers.ts).
 * Both rates run from the first delivery received to the last, and the CPU per delivery is read
 * from /proc for the worker processes and the dev server over that span. Then: latency from a
 * write's answer to its delivery at half the 1-endpoint rate; the 1-endpoint drain by two worker
 * processes, with its rate against one worker's and each worker's share of the first attempts
 * (from the deliveries' histories); 5 endpoints; and one endpoint answering after 9 s while four
 * others drain. `--workers` runs only the 1-endpoint drains, by one worker and by two.
 * BENCH_DELIVERIES (default 2000), BENCH_LATENCY_WRITES (default 300).
 */
import { machine } from './machine.ts';
import { openPushStand } from './push-stand.ts';
import { arrivalsOf, percentile, round } from './push-support.ts';

const TOTAL = Number(process.env.BENCH_DELIVERIES ?? 2000);
const LATENCY_WRITES = Number(process.env.BENCH_LATENCY_WRITES ?? 300);
/** `--workers`: only the 1-endpoint drain by one worker and by two. */
const WORKERS_ONLY = process.argv.includes('--workers');

const stand = await openPushStand();
const { receiver, orm, write, pipelineDrain, endpointDrain } = stand;

try {
  const naive = WORKERS_ONLY ? undefined : await stand.naiveDrain(TOTAL);

  // (b) The service: a channel with one endpoint, its published properties.
  const { e1, addEndpoint } = await stand.openChannel();

  const one = await endpointDrain(e1, TOTAL, 1);
  /** The same drain by two workers, against this one's. */
  const twoWorkers = async () => {
    const two = await endpointDrain(e1, TOTAL, 2);
    return {
      '(b) service, 1 endpoint, two workers': two,
      'ratio two workers / one, deliveries per second': round(two.perSecond / one.perSecond, 2),
    };
  };
  if (WORKERS_ONLY) {
    const workersFigures = await twoWorkers();
    console.log(JSON.stringify({ machine: machine(), '(b) service, 1 endpoint': one, ...workersFigures }, null, 2));
  } else {
    // Latency at half the 1-endpoint rate: one writer, paced, so write i is the i-th event of the log.
    const [{ id: channelId }] = await orm.em
      .fork()
      .execute<[{ id: string }]>("select id from channel where name = 'bench-channel'");
    const [{ last_position: before }] = await orm.em
      .fork()
      .execute<[{ last_position: string }]>('select last_position from channel_log where channel_id = ?', [channelId]);
    const pace = 1000 / (one.perSecond / 2);
    const answered: number[] = [];
    const latencyStart = performance.now();
    for (let i = 0; i < LATENCY_WRITES; i += 1) {
      const due = latencyStart + i * pace;
      if (performance.now() < due) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
      await write();
      answered.push(performance.now());
    }
    const latencyRate = LATENCY_WRITES / ((answered.at(-1)! - latencyStart) / 1000);
    const events = await orm.em
      .fork()
      .execute<{ id: string }[]>('select id from event where channel_id = ? and position > ? order by position', [
        channelId,
        before,
      ]);
    if (events.length !== LATENCY_WRITES) throw new Error(`${events.length} events for ${LATENCY_WRITES} writes`);
    const wanted = new Set(events.map((e) => e.id));
    const latencyArrivals = await arrivalsOf(
      receiver,
      (a) => a.path === '/e1' && wanted.has(a.id),
      LATENCY_WRITES,
      120_000,
    );
    const receivedAt = new Map(latencyArrivals.map((a) => [a.id, a.at]));
    const latencies = events.map((e, i) => receivedAt.get(e.id)! - answered[i]!);

    const workersFigures = await twoWorkers();

    // Five endpoints.
    for (const route of ['/e2', '/e3', '/e4', '/e5']) await addEndpoint(route);
    const { drain: five } = await pipelineDrain(['/e1', '/e2', '/e3', '/e4', '/e5'], TOTAL, Math.ceil(TOTAL / 5));

    // One endpoint answering after 9 s while four drain.
    receiver.delay('/e5', 9_000);
    const slowWrites = Math.ceil(TOTAL / 5);
    const { drain: fast, writing: slowSince } = await pipelineDrain(
      ['/e1', '/e2', '/e3', '/e4'],
      slowWrites * 4,
      slowWrites,
    );
    const slowArrivals = await arrivalsOf(receiver, (a) => a.at > slowSince && a.path === '/e5', slowWrites, 600_000);
    const slowDrainS = (Math.max(...slowArrivals.map((a) => a.at)) - slowSince) / 1000;

    console.log(
      JSON.stringify(
        {
          machine: machine(),
          '(a) naive: workflow + one activity POSTing': naive,
          '(b) service, 1 endpoint': one,
          '(b) service, 5 endpoints': five,
          'ratio (b)/(a) deliveries per second': {
            '1 endpoint': round(one.perSecond / naive!.perSecond, 2),
            '5 endpoints': round(five.perSecond / naive!.perSecond, 2),
          },
          'ratio worker CPU per delivery (b)/(a)': {
            '1 endpoint': round(one.workerCpuMsPerDelivery / naive!.workerCpuMsPerDelivery, 2),
            '5 endpoints': round(five.workerCpuMsPerDelivery / naive!.workerCpuMsPerDelivery, 2),
          },
          [`write answered → delivery received, ms, at ${round(latencyRate)} writes/s (half the 1-endpoint rate), ${LATENCY_WRITES} writes`]:
            { median: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), p99: percentile(latencies, 0.99) },
          'one endpoint answering after 9 s, four others': {
            'four fast endpoints, deliveries per second': fast.perSecond,
            'the same four in the all-fast 5-endpoint run (4/5 of its rate)': round((five.perSecond * 4) / 5),
            'slow endpoint: deliveries, all received after s': {
              deliveries: slowArrivals.length,
              seconds: round(slowDrainS),
            },
          },
          ...workersFigures,
          'signatures failing standardwebhooks verification': receiver.unverified(),
        },
        null,
        2,
      ),
    );
  }
} finally {
  await stand.close();
}
