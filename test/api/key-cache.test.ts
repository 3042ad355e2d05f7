import { describe, expect, test } from 'vitest';
import { KeyCache, type KnownKey } from '../../api/middleware/key-cache.ts';

const key = (id: string) => ({ id }) as KnownKey;

describe('KeyCache', () => {
  test('keeps at most its capacity, dropping the least recently used first', () => {
    const cache = new KeyCache(2);
    cache.set('a', key('a'));
    cache.set('b', key('b'));
    expect(cache.get('a')?.id).toBe('a'); // a is now the most recently used
    cache.set('c', key('c'));
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.id).toBe('a');
    expect(cache.get('c')?.id).toBe('c');
  });

  test('set replaces an entry and delete forgets it', () => {
    const cache = new KeyCache(2);
    cache.set('a', key('old'));
    cache.set('a', key('new'));
    expect(cache.size).toBe(1);
    expect(cache.get('a')?.id).toBe('new');
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });
});
