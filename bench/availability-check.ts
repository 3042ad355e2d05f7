/**
 * The checker of `bench:availability`'s channel, in a thread of its own: it parses each page
 * (`{ page: ArrayBuffer }`, transferred) and verifies it while the next one is pulled, and at
 * `{ done: true }` answers its totals and its own CPU.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { daysBetween } from '../domain/availability/nights.ts';
import { ID_PATTERNS } from '../domain/catalogue/ids.ts';

interface Page {
  data: { property_id: string; from: string; to: string; data: { date: string; rates: { rate_plan_id: string }[] }[] }[];
}

const { today } = workerData as { today: string };
const nightsOf = new Map<string, { nights: number; to: string }>();
const planIds = new Set<string>();
const pageNights: number[] = [];
const checkMs: number[] = [];
const cpuStart = process.threadCpuUsage();
let received = 0;

function check(bytes: ArrayBuffer): void {
  const started = performance.now();
  const page = JSON.parse(Buffer.from(bytes).toString('utf8')) as Page;
  let nights = 0;
  for (const record of page.data) {
    if (!ID_PATTERNS.property.test(record.property_id)) throw new Error(`not a property id: ${record.property_id}`);
    if (record.data.length !== daysBetween(record.from, record.to)) throw new Error(`${record.property_id}: ${record.data.length} nights from ${record.from} to ${record.to}`);
    const seen = nightsOf.get(record.property_id);
    if (seen && seen.to !== record.from) throw new Error(`${record.property_id} continues at ${record.from}, its previous record ended at ${seen.to}`);
    if (!seen && record.from !== today) throw new Error(`${record.property_id} starts at ${record.from}, not today ${today}`);
    for (const night of record.data) {
      if (night.rates.length !== 2) throw new Error(`${record.property_id} ${night.date}: ${night.rates.length} rates`);
      for (const rate of night.rates) {
        if (!ID_PATTERNS.rate_plan.test(rate.rate_plan_id)) throw new Error(`${record.property_id} ${night.date}: rate_plan_id ${JSON.stringify(rate.rate_plan_id)} is not an rpl_ id`);
      }
    }
    for (const rate of record.data[0]?.rates ?? []) planIds.add(rate.rate_plan_id);
    nightsOf.set(record.property_id, { nights: (seen?.nights ?? 0) + record.data.length, to: record.to });
    nights += record.data.length;
  }
  received += nights;
  pageNights.push(nights);
  checkMs.push(performance.now() - started);
}

parentPort!.on('message', (message: { page?: ArrayBuffer; done?: boolean }) => {
  try {
    if (message.page !== undefined) check(message.page);
    if (message.done) {
      const cpu = process.threadCpuUsage(cpuStart);
      parentPort!.postMessage({
        received,
        properties: nightsOf.size,
        nightsPerProperty: [...nightsOf.values()].map((v) => v.nights),
        planIds: planIds.size,
        pageNights,
        checkMs,
        cpuMs: (cpu.user + cpu.system) / 1000,
      });
    }
  } catch (error) {
    parentPort!.postMessage({ error: String(error) });
  }
});
