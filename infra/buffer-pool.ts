/**
 * Large buffers kept for reuse. A 5,000-night availability page is about 5.5 MB; a fresh buffer
 * for each page is memory V8 counts as external, and every 64 MB or so of it starts a full
 * collection of the whole heap (on two cores, more CPU than building the page). A buffer taken
 * from here is given back once nothing reads it any more (the response closed), and the next page
 * is written into it.
 *
 * What a reused buffer held before is never sent: a caller sends only the bytes it wrote.
 */
export class BufferPool {
  readonly #free: Buffer[] = [];
  readonly #keep: number;
  readonly #minBytes: number;
  readonly #maxBytes: number;

  /** Keeps at most `keep` buffers of `minBytes` to `maxBytes`; larger ones are left to the collector. */
  constructor(options: { keep: number; minBytes: number; maxBytes: number }) {
    this.#keep = options.keep;
    this.#minBytes = options.minBytes;
    this.#maxBytes = options.maxBytes;
  }

  /** A buffer of at least `bytes` (its content is what it last held), and the one way to give it back. */
  take(bytes: number): { buffer: Buffer; release: () => void } {
    const at = this.#free.findIndex((free) => free.length >= bytes);
    const buffer = at === -1 ? Buffer.allocUnsafeSlow(Math.max(bytes, this.#minBytes)) : this.#free.splice(at, 1)[0]!;
    let released = false;
    return {
      buffer,
      // Once only: a buffer given back twice could be handed to two pages at the same time.
      release: () => {
        if (released) return;
        released = true;
        if (buffer.length <= this.#maxBytes && this.#free.length < this.#keep) this.#free.push(buffer);
      },
    };
  }

  /** Buffers waiting to be taken. */
  get size(): number {
    return this.#free.length;
  }
}

/** The most UTF-8 bytes one UTF-16 code unit of a JavaScript string becomes. */
const MAX_UTF8_BYTES_PER_UNIT = 3;

/**
 * `texts` as UTF-8, joined by commas, written one by one into a buffer of `pool`. Joining a page
 * of records into one string and encoding that costs several times more: a record with one
 * character outside Latin-1 makes the joined page a two-byte string, flattened and then encoded
 * whole. `release` gives the buffer back: call it once nothing reads `bytes` (the answer closed).
 */
export function joinedUtf8(pool: BufferPool, texts: readonly string[]): { bytes: Buffer; release: () => void } {
  let room = texts.length;
  for (const text of texts) room += text.length * MAX_UTF8_BYTES_PER_UNIT;
  const { buffer, release } = pool.take(room);
  let offset = 0;
  for (let i = 0; i < texts.length; i += 1) {
    if (i > 0) buffer[offset++] = COMMA;
    offset += buffer.write(texts[i]!, offset, 'utf8');
  }
  return { bytes: buffer.subarray(0, offset), release };
}

const COMMA = 0x2c;
