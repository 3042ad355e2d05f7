/**
 * `npm run bench:push-pair`: deliveries against the two baselines an outside pair measures them
 * by, on one file-backed Temporal dev server, in alternating rounds of one run:
 *
 * (a) naive: a trivial workflow running one regular activity that POSTs once (its own worker, a
 *     child process), started by a client 32 at a time;
 * (c) empty: a workflow that does nothing, started the same way on the same worker, counted
 *     completed from its first start to its last completion;
 * (b) the service: platform write → event → dispatcher → delivery workflow → signed POST to one
 *     endpoint, verified by the receiver; the writes are made while the worker
 *     (`scripts/worker.ts`) is stopped and it then drains them (bench/push-stand.ts).
 *
 * Each round prints the three rates, the CPU per delivery of the worker process(es), of the dev
 * server and of the whole machine (PostgreSQL, the receiver and the bench included), how busy the
 * machine's cores were, and the service's ratios to (a) and (c); the document's `rounds` figures merge to
 * medians over the runs of `bench/runs.ts`. BENCH_DELIVERIES (default 1000) a drain,
 * BENCH_ROUNDS (default 2).
 */
import { machine } from './machine.ts';
import { openPushStand, type Drain } from './push-stand.ts';
import { round } from './push-support.ts';

const TOTAL = Number(process.env.BENCH_DELIVERIES ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

const stand = await openPushStand();
try {
  const { e1 } = await stand.openChannel();
  const rounds: Record<string, unknown>[] = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    const naive = await stand.naiveDrain(TOTAL);
    const empty = await stand.emptyDrain(TOTAL);
    const service: Drain = await stand.endpointDrain(e1, TOTAL, 1);
    rounds.push({
      '(a) naive: workflow + one activity POSTing': naive,
      '(c) empty workflow a client starts': empty,
      '(b) service, 1 endpoint': service,
      'service / naive, deliveries per second': round(service.perSecond / naive.perSecond, 2),
      'service / empty, per second': round(service.perSecond / empty.perSecond, 2),
      'service / naive, worker CPU per delivery': round(
        service.workerCpuMsPerDelivery / naive.workerCpuMsPerDelivery,
        2,
      ),
    });
    console.error(JSON.stringify(rounds.at(-1)));
  }
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        deliveries: TOTAL,
        rounds,
        'signatures failing standardwebhooks verification': stand.receiver.unverified(),
      },
      null,
      2,
    ),
  );
} finally {
  await stand.close();
}
