/**
 * The checker of `bench:availability`'s channel, in a thread of its own: it verifies each page
 * (`{ page: ArrayBuffer }`, transferred) while the next one is pulled, and at `{ done: true }`
 * answers its totals and its own CPU.
 *
 * Every page is scanned as bytes: each record's property id, range and nights (one per date, in
 * date order, from `from` up to `to`), and the two rate plan ids of its first and last nights (the
 * channel's `rpl_` ids, the same on every night of a property). Every `fullEvery`-th page (and the
 * first) is also parsed with `JSON.parse` and every night's rates checked, and the two readings
 * must agree. A full parse of a 5 MB page costs about 30 ms of CPU, as much as the server
 * spends building it; on the two cores the server shares with this channel, parsing every page
 * would measure the channel's parser more than the service. The full reading's time is printed
 * apart.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { daysBetween } from '../domain/availability/nights.ts';
import { ID_PATTERNS } from '../domain/catalogue/ids.ts';
import { addDays } from '../domain/time.ts';

interface Page {
  data: {
    property_id: string;
    from: string;
    to: string;
    data: { date: string; rates: { rate_plan_id: string }[] }[];
  }[];
}

/** One record as read: its property, range, nights and its plans' ids. */
interface Reading {
  property: string;
  from: string;
  to: string;
  nights: number;
  plans: string;
}

const { today, fullEvery } = workerData as { today: string; fullEvery: number };
const nightsOf = new Map<string, { nights: number; to: string; plans: string }>();
const planIds = new Set<string>();
const pageNights: number[] = [];
const checkMs: number[] = [];
const fullMs: number[] = [];
const cpuStart = process.threadCpuUsage();
let received = 0;
let pages = 0;

/** The dates from today on, so a night's date is compared, not computed. */
const dates = Array.from({ length: 800 }, (_, i) => addDays(today, i));

const RECORD = Buffer.from('{"property_id":"');
const HEAD =
  /^\{"property_id":"([^"]*)","currency":"[A-Z]{3}","version":\d+,"updated_at":"[^"]*","from":"(\d{4}-\d\d-\d\d)","to":"(\d{4}-\d\d-\d\d)","horizon_end":"\d{4}-\d\d-\d\d","data":\[/;
const NIGHT = Buffer.from('{"date":"');
const PLAN = Buffer.from('"rate_plan_id":"');
const dateBytes = dates.map((date) => Buffer.from(date, 'latin1'));
/** The characters of an id after its prefix: lowercase Crockford base32. */
const ID_CHAR = new Uint8Array(256);
for (const c of '0123456789abcdefghjkmnpqrstvwxyz') ID_CHAR[c.charCodeAt(0)] = 1;
const RPL = Buffer.from('rpl_');
const ID_LENGTH = 30;

/** True when `page` holds an `rpl_` id and its closing quote at `at`. */
function isPlanId(page: Buffer, at: number): boolean {
  if (
    page[at] !== RPL[0] ||
    page[at + 1] !== RPL[1] ||
    page[at + 2] !== RPL[2] ||
    page[at + 3] !== RPL[3] ||
    page[at + ID_LENGTH] !== 0x22
  )
    return false;
  if (page[at + 4]! < 0x30 || page[at + 4]! > 0x37) return false; // the first character is 0-7
  for (let i = at + 4; i < at + ID_LENGTH; i += 1) if (ID_CHAR[page[i]!] !== 1) return false;
  return true;
}

/** The records of a page read from its bytes, without building its objects. */
function scan(page: Buffer): Reading[] {
  const heads: { property: string; from: string; to: string; start: number; at: number }[] = [];
  for (let at = page.indexOf(RECORD); at !== -1; at = page.indexOf(RECORD, at + RECORD.length)) {
    const head = HEAD.exec(page.toString('latin1', at, at + 400));
    if (!head) throw new Error(`a record at byte ${at} does not start as expected`);
    heads.push({ property: head[1]!, from: head[2]!, to: head[3]!, start: at + head[0].length, at });
  }
  return heads.map((record, r) => {
    const end = heads[r + 1]?.at ?? page.length;
    const first = daysBetween(today, record.from);
    let nights = 0;
    let firstIds = null as number[] | null; // where the record's first night's ids are
    /** The rates of the night in [at, stop): two, each an rpl_ id, the same as on the record's first night. */
    const rates = (at: number, stop: number) => {
      const ids: number[] = [];
      for (let p = page.indexOf(PLAN, at); p !== -1 && p < stop; p = page.indexOf(PLAN, p + PLAN.length)) {
        if (!isPlanId(page, p + PLAN.length))
          throw new Error(`${record.property} ${dates[first + nights]}: a rate_plan_id that is not an rpl_ id`);
        ids.push(p + PLAN.length);
      }
      if (ids.length !== 2) throw new Error(`${record.property} ${dates[first + nights]}: ${ids.length} rates`);
      if (firstIds === null) firstIds = ids;
      else if (
        ids.some((id, k) => page.compare(page, id, id + ID_LENGTH, firstIds![k], firstIds![k]! + ID_LENGTH) !== 0)
      ) {
        throw new Error(
          `${record.property} ${dates[first + nights]}: rate plan ids differ from the record's first night`,
        );
      }
    };
    for (let at = page.indexOf(NIGHT, record.start); at !== -1 && at < end;) {
      const date = dateBytes[first + nights]!;
      for (let i = 0; i < 10; i += 1)
        if (page[at + NIGHT.length + i] !== date[i])
          throw new Error(`${record.property}: night ${nights} is not ${dates[first + nights]}`);
      const next = page.indexOf(NIGHT, at + NIGHT.length);
      const last = next === -1 || next > end;
      // The rates of the record's first and last nights here; of every night on the pages also parsed.
      if (nights === 0 || last) rates(at, last ? end : next);
      nights += 1;
      at = next;
    }
    const plans = (firstIds ?? []).map((id) => page.toString('latin1', id, id + ID_LENGTH)).join('');
    return { property: record.property, from: record.from, to: record.to, nights, plans };
  });
}

function parse(text: string): Reading[] {
  const page = JSON.parse(text) as Page;
  return page.data.map((record) => {
    for (const night of record.data) {
      if (night.rates.length !== 2) throw new Error(`${record.property_id} ${night.date}: ${night.rates.length} rates`);
      for (const rate of night.rates) {
        if (!ID_PATTERNS.rate_plan.test(rate.rate_plan_id))
          throw new Error(
            `${record.property_id} ${night.date}: rate_plan_id ${JSON.stringify(rate.rate_plan_id)} is not an rpl_ id`,
          );
      }
    }
    const first = daysBetween(today, record.from);
    record.data.forEach((night, i) => {
      if (night.date !== dates[first + i])
        throw new Error(`${record.property_id}: night ${i} is ${night.date}, not ${dates[first + i]}`);
    });
    return {
      property: record.property_id,
      from: record.from,
      to: record.to,
      nights: record.data.length,
      plans: record.data[0]?.rates.map((rate) => rate.rate_plan_id).join('') ?? '',
    };
  });
}

function check(bytes: ArrayBuffer): void {
  const started = performance.now();
  const records = scan(Buffer.from(bytes));
  const scanned = performance.now();
  if (pages % fullEvery === 0) {
    const parsed = parse(Buffer.from(bytes).toString('utf8'));
    if (JSON.stringify(parsed) !== JSON.stringify(records))
      throw new Error(`page ${pages}: the text scan and JSON.parse read different records`);
    fullMs.push(performance.now() - scanned);
  }
  pages += 1;
  let nights = 0;
  for (const record of records) {
    if (!ID_PATTERNS.property.test(record.property)) throw new Error(`not a property id: ${record.property}`);
    if (record.nights !== daysBetween(record.from, record.to))
      throw new Error(`${record.property}: ${record.nights} nights from ${record.from} to ${record.to}`);
    const seen = nightsOf.get(record.property);
    if (seen && seen.to !== record.from)
      throw new Error(`${record.property} continues at ${record.from}, its previous record ended at ${seen.to}`);
    if (!seen && record.from !== today)
      throw new Error(`${record.property} starts at ${record.from}, not today ${today}`);
    if (seen && record.nights > 0 && seen.plans !== '' && seen.plans !== record.plans)
      throw new Error(`${record.property}: rate plan ids changed between pages`);
    if (!seen)
      for (let i = 0; i + ID_LENGTH <= record.plans.length; i += ID_LENGTH)
        planIds.add(record.plans.slice(i, i + ID_LENGTH));
    nightsOf.set(record.property, {
      nights: (seen?.nights ?? 0) + record.nights,
      to: record.to,
      plans: seen?.plans || record.plans,
    });
    nights += record.nights;
  }
  received += nights;
  pageNights.push(nights);
  checkMs.push(scanned - started);
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
        fullMs,
        cpuMs: (cpu.user + cpu.system) / 1000,
      });
    }
  } catch (error) {
    parentPort!.postMessage({ error: String(error) });
  }
});
