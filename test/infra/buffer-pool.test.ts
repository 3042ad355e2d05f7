import { describe, expect, test } from 'vitest';
import { BufferPool, joinedUtf8 } from '../../infra/buffer-pool.ts';

const pool = () => new BufferPool({ keep: 2, minBytes: 64, maxBytes: 4096 });

describe('joinedUtf8', () => {
  test.each([
    ['no texts', []],
    ['ASCII', ['{"id":"a"}', '{"id":"b"}']],
    ['Latin-1 beside two-byte text', ['{"name":"città"}', '{"name":"Brașov, vedere spre munți"}']],
    ['a character outside the basic plane', ['{"name":"🏔 chalet"}', '{}']],
    ['a lone surrogate, written as Buffer.from writes it', ['{"x":"\ud800"}']],
  ])('writes %s as the UTF-8 of the texts joined by commas', (_name, texts) => {
    const { bytes } = joinedUtf8(pool(), texts);
    expect(bytes.equals(Buffer.from(texts.join(','), 'utf8'))).toBe(true);
  });

  test('a buffer given back is written again from its start, and only the new bytes are answered', () => {
    const buffers = pool();
    const first = joinedUtf8(buffers, ['x'.repeat(200), 'y'.repeat(200)]);
    const firstBuffer = first.bytes.buffer;
    first.release();
    expect(buffers.size).toBe(1);
    const second = joinedUtf8(buffers, ['"short"']);
    expect(second.bytes.buffer).toBe(firstBuffer);
    expect(second.bytes.toString('utf8')).toBe('"short"');
    expect(buffers.size).toBe(0);
  });
});
