import { describe, expect, test } from 'vitest';
import { planPlaceholder, storedNightText } from '../../domain/availability/nights.ts';
import { BufferPool } from '../../infra/buffer-pool.ts';
import { RecordWriter } from '../../services/availability-records.ts';

const PROPERTY = '0b1e0000-0000-4000-8000-000000000001';
const PLANS = `${PROPERTY}/flex rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa ${PROPERTY}/nonref rpl_0bbbbbbbbbbbbbbbbbbbbbbbbb`;
const nightObject = (date: string, plans: string[], note = 'Brașov – ☃') => ({
  date,
  note,
  rates: plans.map((key) => ({ rate_plan_id: planPlaceholder(key), closed: false })),
});
/** A night as stored before placeholders were padded, with text beyond ASCII. */
const night = (date: string, plans: string[]) => JSON.stringify(nightObject(date, plans));
/** A night as stored now: ASCII, its placeholders padded. */
const stored = (date: string, plans: string[]) => storedNightText(nightObject(date, plans, 'Brasov'));
const ids = (written: string) =>
  (JSON.parse(`[${written}]`) as { data: { rates: { rate_plan_id: string | null }[] }[] }[]).flatMap((r) =>
    r.data.map((n) => n.rates.map((rate) => rate.rate_plan_id)),
  );
interface RecordText {
  head: string;
  pieces: string[];
  plans: string;
}
const record = (head: string, pieces: string[], plans = PLANS): RecordText => ({ head, pieces, plans });
/** Whole records through the writer, as a page writes them. */
function writeRecords(records: RecordText[], pool: BufferPool) {
  const writer = new RecordWriter(pool);
  for (const { head, pieces, plans } of records) {
    writer.begin(head, PROPERTY, plans);
    for (const piece of pieces) writer.piece(piece);
    writer.end(head);
  }
  return writer.finish();
}
const pool = () => new BufferPool({ keep: 2, minBytes: 1024, maxBytes: 1 << 20 });
const text = (records: RecordText[], from = pool()) => writeRecords(records, from).bytes.toString('utf8');

describe('RecordWriter', () => {
  test('swaps every plan placeholder for the channel id, UTF-8 exact, pieces joined by commas between head and tail', () => {
    const data = [night('2026-11-22', ['flex', 'nonref']), night('2026-11-23', ['nonref', 'flex'])];
    const { bytes } = writeRecords([record('{"id":"ș","data":[', data)], pool());
    const parsed = JSON.parse(bytes.toString('utf8'));
    expect(bytes.length).toBe(Buffer.byteLength(bytes.toString('utf8')));
    expect(parsed.id).toBe('ș');
    expect(parsed.data.map((n: { rates: { rate_plan_id: string }[] }) => n.rates.map((r) => r.rate_plan_id))).toEqual([
      ['rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa', 'rpl_0bbbbbbbbbbbbbbbbbbbbbbbbb'],
      ['rpl_0bbbbbbbbbbbbbbbbbbbbbbbbb', 'rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa'],
    ]);
    expect(parsed.data[0].note).toBe('Brașov – ☃');
  });

  test('records are joined by commas, each with its own plans', () => {
    const written = text([
      record('{"n":1,"data":[', [night('2026-11-22', ['flex'])]),
      record('{"n":2,"data":[', [night('2026-11-22', ['nonref'])]),
    ]);
    expect(
      JSON.parse(`[${written}]`).map((r: { n: number; data: { rates: { rate_plan_id: string }[] }[] }) => [
        r.n,
        r.data[0]!.rates[0]!.rate_plan_id,
      ]),
    ).toEqual([
      [1, 'rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa'],
      [2, 'rpl_0bbbbbbbbbbbbbbbbbbbbbbbbb'],
    ]);
  });

  test('a plan without a channel id becomes null, never its platform key', () => {
    const written = text([record('{"data":[', [night('2026-11-22', ['secret-key'])], '')]);
    expect(written).not.toContain('secret-key');
    expect(JSON.parse(written).data[0].rates[0].rate_plan_id).toBeNull();
  });

  test('no nights: head and tail only; no records: nothing', () => {
    expect(text([record('{"data":[', [], '')])).toBe('{"data":[]}');
    expect(text([])).toBe('');
  });

  test('a reused buffer sends only what the new page wrote, never what an earlier page left in it', () => {
    const shared = new BufferPool({ keep: 2, minBytes: 1 << 16, maxBytes: 1 << 20 });
    const big = writeRecords(
      [
        record(
          '{"channel":"first","data":[',
          Array.from({ length: 20 }, (_, i) => night(`2026-12-${String(i + 1).padStart(2, '0')}`, ['flex'])),
        ),
      ],
      shared,
    );
    const firstBuffer = big.bytes.buffer;
    big.release();
    const small = writeRecords([record('{"channel":"second","data":[', [])], shared);
    expect(small.bytes.buffer).toBe(firstBuffer);
    expect(small.bytes.toString('utf8')).toBe('{"channel":"second","data":[]}');
  });

  test('a buffer given back twice is kept once, and two pages in flight never share one', () => {
    const shared = pool();
    const first = writeRecords([record('{"data":[', [])], shared);
    first.release();
    first.release();
    expect(shared.size).toBe(1);
    const a = writeRecords([record('{"a":1,"data":[', [])], shared);
    const b = writeRecords([record('{"b":1,"data":[', [])], shared);
    expect(a.bytes.buffer).not.toBe(b.bytes.buffer);
    expect([a.bytes.toString(), b.bytes.toString()]).toEqual(['{"a":1,"data":[]}', '{"b":1,"data":[]}']);
  });

  test('the pool keeps at most its number of buffers, and none larger than its maximum', () => {
    const shared = pool();
    const pages = [0, 1, 2].map(() => shared.take(100));
    for (const page of pages) page.release();
    expect(shared.size).toBe(2);
    const huge = new BufferPool({ keep: 2, minBytes: 16, maxBytes: 1024 });
    huge.take(4096).release();
    expect(huge.size).toBe(0);
  });

  test('each piece is its own text: pieces of one record are joined by commas, a night never split', () => {
    const pieces = [
      [night('2026-11-22', ['flex']), night('2026-11-23', ['flex'])].join(','),
      night('2026-11-24', ['nonref']),
    ];
    const parsed = JSON.parse(text([record('{"data":[', pieces)]));
    expect(parsed.data.map((n: { date: string }) => n.date)).toEqual(['2026-11-22', '2026-11-23', '2026-11-24']);
    expect(parsed.data[2].rates[0].rate_plan_id).toBe('rpl_0bbbbbbbbbbbbbbbbbbbbbbbbb');
  });

  test('the head is written when the record ends, into the room kept for it', () => {
    const writer = new RecordWriter(pool());
    writer.begin('{"to":"2026-11-22","data":[', PROPERTY, PLANS);
    writer.piece(night('2026-11-22', ['flex']));
    writer.end('{"to":"2026-11-23","data":[');
    const { bytes } = writer.finish();
    expect(JSON.parse(bytes.toString('utf8')).to).toBe('2026-11-23');
    const other = new RecordWriter(pool());
    other.begin('{"to":"2026-11-22","data":[', PROPERTY, PLANS);
    expect(() => other.end('{"to":"2026-11-2","data":[')).toThrow(/changed length/);
  });

  test('a page larger than its buffer moves to a larger one with everything written so far', () => {
    const small = new BufferPool({ keep: 2, minBytes: 64, maxBytes: 1 << 20 });
    const nights = Array.from({ length: 40 }, (_, i) => night(`2026-12-${String(i + 1).padStart(2, '0')}`, ['flex']));
    const written = writeRecords(
      [record('{"n":1,"data":[', nights.slice(0, 20)), record('{"n":2,"data":[', nights.slice(20))],
      small,
    );
    const parsed = JSON.parse(`[${written.bytes.toString('utf8')}]`);
    expect(parsed.map((r: { data: unknown[] }) => r.data.length)).toEqual([20, 20]);
    expect(written.bytes.length).toBeGreaterThan(64);
  });

  test('padded placeholders are overwritten in place: the same page as from unpadded ones, without spaces', () => {
    const plans = ['flex', 'nonref'];
    const padded = text([record('{"data":[', [stored('2026-11-22', plans), stored('2026-11-23', plans.toReversed())])]);
    expect(padded).not.toContain(' ');
    expect(ids(padded)).toEqual([
      ['rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa', 'rpl_0bbbbbbbbbbbbbbbbbbbbbbbbb'],
      ['rpl_0bbbbbbbbbbbbbbbbbbbbbbbbb', 'rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa'],
    ]);
    const plain = JSON.stringify(nightObject('2026-11-22', plans, 'Brasov'));
    expect(text([record('{"data":[', [stored('2026-11-22', plans)])])).toBe(text([record('{"data":[', [plain])]));
  });

  test('a piece mixing padded and unpadded placeholders, or beyond ASCII, is spliced whole', () => {
    const mixed = [stored('2026-11-22', ['flex']), JSON.stringify(nightObject('2026-11-23', ['nonref'], 'Brasov'))];
    expect(ids(text([record('{"data":[', [mixed.join(',')])]))).toEqual([
      ['rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa'],
      ['rpl_0bbbbbbbbbbbbbbbbbbbbbbbbb'],
    ]);
    const accented = storedNightText(nightObject('2026-11-24', ['flex']));
    const written = text([record('{"data":[', [accented])]);
    expect(ids(written)).toEqual([['rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa']]);
    expect(JSON.parse(written).data[0].note).toBe('Brașov – ☃');
  });

  test('a padded placeholder of a plan without a channel id becomes null, never its key', () => {
    const written = text([record('{"data":[', [stored('2026-11-22', ['secret-key', 'flex'])])]);
    expect(written).not.toContain('secret-key');
    expect(ids(written)).toEqual([[null, 'rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa']]);
  });
});
