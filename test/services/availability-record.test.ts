import { describe, expect, test } from 'vitest';
import { planPlaceholder } from '../../domain/availability/nights.ts';
import { recordBytes } from '../../services/availability.ts';

const PROPERTY = '0b1e0000-0000-4000-8000-000000000001';
const night = (date: string, plans: string[]) => JSON.stringify({ date, note: 'Brașov – ☃', rates: plans.map((key) => ({ rate_plan_id: planPlaceholder(key), closed: false })) });

describe('recordBytes', () => {
  test('swaps every plan placeholder for the channel id, UTF-8 exact, pieces joined by commas between head and tail', () => {
    const data = [night('2026-11-22', ['flex', 'nonref']), night('2026-11-23', ['nonref', 'flex'])];
    const bytes = recordBytes('{"id":"ș","data":[', data, PROPERTY, `${PROPERTY}/flex rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa ${PROPERTY}/nonref rpl_0bbbbbbbbbbbbbbbbbbbbbbbbb`, ']}');
    const record = JSON.parse(bytes.toString('utf8'));
    expect(bytes.length).toBe(Buffer.byteLength(bytes.toString('utf8')));
    expect(record.id).toBe('ș');
    expect(record.data.map((n: { rates: { rate_plan_id: string }[] }) => n.rates.map((r) => r.rate_plan_id))).toEqual([
      ['rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa', 'rpl_0bbbbbbbbbbbbbbbbbbbbbbbbb'],
      ['rpl_0bbbbbbbbbbbbbbbbbbbbbbbbb', 'rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa'],
    ]);
    expect(record.data[0].note).toBe('Brașov – ☃');
  });

  test('a plan without a channel id becomes null, never its platform key', () => {
    const bytes = recordBytes('{"data":[', [night('2026-11-22', ['secret-key'])], PROPERTY, '', ']}');
    const text = bytes.toString('utf8');
    expect(text).not.toContain('secret-key');
    expect(JSON.parse(text).data[0].rates[0].rate_plan_id).toBeNull();
  });

  test('no nights: head and tail only', () => {
    expect(recordBytes('{"data":[', [], PROPERTY, '', ']}').toString()).toBe('{"data":[]}');
  });
});
