import { PLAN_ID_JSON_WIDTH } from '../domain/availability/nights.ts';
import { BufferPool } from '../infra/buffer-pool.ts';

/**
 * Pages are written into buffers kept for reuse (see `BufferPool`): two of at least 8 MiB, so an
 * API process keeps 16 MiB or more for them; a page larger than 64 MiB gets a buffer of its own.
 */
const pageBuffers = new BufferPool({ keep: 2, minBytes: 8 * 2 ** 20, maxBytes: 64 * 2 ** 20 });

/** Where a plan placeholder starts in stored JSON text (`"\u0001<key>"`, see `planPlaceholder`). */
const PLACEHOLDER_START = '"\\u0001';
const COMMA = 0x2c;
const SPACE = 0x20;
/** What an unknown plan's padded placeholder becomes: `null`, padded alike. */
const PADDED_NULL = Buffer.from('null'.padEnd(PLAN_ID_JSON_WIDTH, ' '), 'latin1');
/** Closes a record's nights and the record, whose head ends with `"data":[`. */
const RECORD_TAIL = ']}';

/**
 * A page's records as the UTF-8 bytes a channel reads, joined by commas, written as the nights
 * arrive from the database, so each piece of stored text is garbage as soon as it is copied (a
 * page's text never lives in the heap all at once: the collector's young generation stays small
 * and cheap to sweep). A record is its head, its stored nights (pieces joined by commas) with
 * every rate plan's placeholder swapped for the channel's id (a plan without one, never the case
 * for a projected property, becomes null rather than leak its key), and `]}`.
 *
 * The head is written last, into room kept for it when the record begins: it names the record's
 * last night, known once its nights have arrived, and keeps its length (dates are fixed width).
 * The buffer comes from `pool` and is replaced by a larger one when the page outgrows it.
 */
export class RecordWriter {
  readonly #pool: BufferPool;
  #taken: { buffer: Buffer; release: () => void };
  #offset = 0;
  #records = 0;
  #pieces = 0;
  #headAt = 0;
  #headBytes = 0;
  #ids = new Map<string, string>();
  /** Each plan's key with its closing quote, and its id as the padded placeholder's bytes. */
  #padded: { keyQuote: string; id: Buffer }[] = [];

  constructor(pool: BufferPool = pageBuffers) {
    this.#pool = pool;
    this.#taken = pool.take(0);
  }

  /**
   * Starts a record of `propertyId` whose head will be as long as `head` (its final text is given
   * to `end`). `plans` are the query's `<property id>/<plan key> <channel id>` pairs.
   */
  begin(head: string, propertyId: string, plans: string): void {
    this.#headBytes = Buffer.byteLength(head);
    this.#room(this.#headBytes + 1);
    if (this.#records > 0) this.#taken.buffer[this.#offset++] = COMMA;
    this.#headAt = this.#offset;
    this.#offset += this.#headBytes;
    this.#pieces = 0;
    this.#ids = new Map();
    this.#padded = [];
    const words = plans.split(' ').filter(Boolean);
    for (let p = 0; p + 1 < words.length; p += 2) {
      const key = words[p]!.slice(propertyId.length + 1);
      const id = JSON.stringify(words[p + 1]);
      this.#ids.set(key, id);
      if (id.length === PLAN_ID_JSON_WIDTH) this.#padded.push({ keyQuote: `${key}"`, id: Buffer.from(id, 'latin1') });
    }
  }

  /** Appends one piece of the record's stored nights (nights joined by commas). */
  piece(data: string): void {
    const bytes = Buffer.byteLength(data);
    if (bytes !== data.length || !this.#inPlace(data)) this.#spliced(data, bytes);
  }

  /**
   * A piece of ASCII text (the caller checked) whose placeholders are all padded (`storedNightText`): copied whole, then
   * each placeholder overwritten with its id, byte for byte. false when the piece is not such a
   * piece; what was copied then lies past the offset and is written over.
   */
  #inPlace(data: string): boolean {
    this.#room(data.length + 1);
    const { buffer } = this.#taken;
    const start = this.#offset + (this.#pieces > 0 ? 1 : 0);
    buffer.write(data, start, 'latin1');
    for (let slash = data.indexOf('\\'); slash !== -1; slash = data.indexOf('\\', slash + 1)) {
      const at = slash - 1;
      if (!data.startsWith(PLACEHOLDER_START, at)) continue;
      const id = this.#paddedId(data, at);
      if (id === null) return false;
      buffer.set(id, start + at);
      slash = at + PLAN_ID_JSON_WIDTH - 1;
    }
    if (this.#pieces++ > 0) buffer[this.#offset] = COMMA;
    this.#offset = start + data.length;
    return true;
  }

  /** The bytes that replace the padded placeholder at `at`, or null when it is not one. */
  #paddedId(data: string, at: number): Buffer | null {
    const keyAt = at + PLACEHOLDER_START.length;
    const padded = data.charCodeAt(at + PLAN_ID_JSON_WIDTH - 1) === SPACE;
    for (const { keyQuote, id } of this.#padded) {
      if (!data.startsWith(keyQuote, keyAt)) continue;
      return padded || keyAt + keyQuote.length === at + PLAN_ID_JSON_WIDTH ? id : null;
    }
    // A plan the channel has no id for: null, padded alike; its key never leaves.
    const close = data.indexOf('"', keyAt);
    return padded && close !== -1 && close < at + PLAN_ID_JSON_WIDTH ? PADDED_NULL : null;
  }

  /** Any piece: cut around each placeholder and written in parts, the ids spliced between. */
  #spliced(data: string, dataBytes: number): void {
    const ascii = dataBytes === data.length;
    const cuts: number[] = [];
    const swaps: string[] = [];
    let bytes = dataBytes + 1;
    // Found by their backslash, which a stored night has nowhere else: a one-character search
    // (memchr) where `"\u0001` would stop at every quote.
    for (let slash = data.indexOf('\\'); slash !== -1; slash = data.indexOf('\\', slash + 1)) {
      const start = slash - 1;
      if (!data.startsWith(PLACEHOLDER_START, start)) continue;
      const end = data.indexOf('"', start + PLACEHOLDER_START.length) + 1;
      if (end === 0) break;
      const swap = this.#ids.get(data.slice(start + PLACEHOLDER_START.length, end - 1)) ?? 'null';
      cuts.push(start, end);
      swaps.push(swap);
      bytes += swap.length - (end - start);
      slash = end - 1;
    }
    this.#room(bytes);
    const { buffer } = this.#taken;
    if (this.#pieces++ > 0) buffer[this.#offset++] = COMMA;
    const encoding = ascii ? 'latin1' : 'utf8';
    let from = 0;
    for (let i = 0; i < cuts.length; i += 2) {
      this.#offset += buffer.write(data.slice(from, cuts[i]), this.#offset, encoding);
      this.#offset += buffer.write(swaps[i / 2]!, this.#offset, 'latin1');
      from = cuts[i + 1]!;
    }
    this.#offset += buffer.write(from === 0 ? data : data.slice(from), this.#offset, encoding);
  }

  /** Closes the record, writing its head into the room `begin` kept. */
  end(head: string): void {
    if (Buffer.byteLength(head) !== this.#headBytes)
      throw new Error(`a record's head changed length from ${this.#headBytes} to ${Buffer.byteLength(head)} bytes`);
    this.#taken.buffer.write(head, this.#headAt);
    this.#room(RECORD_TAIL.length);
    this.#offset += this.#taken.buffer.write(RECORD_TAIL, this.#offset, 'latin1');
    this.#records += 1;
  }

  /** Appends a whole record given as its JSON text (a tombstone), between two records. */
  whole(json: string): void {
    const bytes = Buffer.byteLength(json);
    this.#room(bytes + 1);
    if (this.#records > 0) this.#taken.buffer[this.#offset++] = COMMA;
    this.#offset += this.#taken.buffer.write(json, this.#offset, 'utf8');
    this.#records += 1;
  }

  /** The bytes written, and the one way to give their buffer back: call it once nothing reads them. */
  finish(): { bytes: Buffer; release: () => void } {
    return { bytes: this.#taken.buffer.subarray(0, this.#offset), release: this.#taken.release };
  }

  /** Gives the buffer back unsent (the page failed). */
  abandon(): void {
    this.#taken.release();
  }

  /** At least `bytes` more after the offset: else a buffer twice as large, holding what was written. */
  #room(bytes: number): void {
    const { buffer } = this.#taken;
    if (this.#offset + bytes <= buffer.length) return;
    const larger = this.#pool.take(Math.max(2 * buffer.length, this.#offset + bytes));
    buffer.copy(larger.buffer, 0, 0, this.#offset);
    this.#taken.release();
    this.#taken = larger;
  }
}
