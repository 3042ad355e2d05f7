/**
 * The channel side of `bench:availability`, in a worker thread: it parses and checks each page
 * while the server (on the main thread) builds the next one, as a channel on its own machine
 * would. It receives `{ text }` per page and `{ done: true }` at the end, and answers its totals.
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
const clientMs: number[] = [];
let received = 0;

function check(text: string): void {
  const started = performance.now();
  const page = JSON.parse(text) as Page;
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
  clientMs.push(performance.now() - started);
}

parentPort!.on('message', (message: { text?: string; done?: boolean }) => {
  try {
    if (message.text !== undefined) check(message.text);
    if (message.done) {
      parentPort!.postMessage({ received, properties: nightsOf.size, nightsPerProperty: [...nightsOf.values()].map((v) => v.nights), planIds: planIds.size, pageNights, clientMs });
    }
  } catch (error) {
    parentPort!.postMessage({ error: String(error) });
  }
});
