import { describe, expect, test } from 'vitest';
import {
  PLAN_ID_JSON_WIDTH,
  planPlaceholder,
  sameStoredNight,
  storedNightText,
} from '../../domain/availability/nights.ts';

const night = (keys: string[]) => ({
  date: '2026-11-22',
  rates: keys.map((key) => ({ rate_plan_id: planPlaceholder(key) })),
});

describe('storedNightText', () => {
  test('pads each placeholder with spaces to the width of a channel id, and parses as the same night', () => {
    const text = storedNightText(night(['flex', 'nonref']));
    const placeholders = [...text.matchAll(/"\\u0001[a-z]+" */g)].map((match) => match[0]);
    expect(placeholders.map((p) => p.length)).toEqual([PLAN_ID_JSON_WIDTH, PLAN_ID_JSON_WIDTH]);
    expect(JSON.stringify('rpl_0aaaaaaaaaaaaaaaaaaaaaaaaa')).toHaveLength(PLAN_ID_JSON_WIDTH);
    expect(JSON.parse(text)).toEqual(night(['flex', 'nonref']));
  });

  test('a key too long to fit is left as it is', () => {
    const key = 'k'.repeat(25);
    expect(storedNightText(night([key]))).toBe(JSON.stringify(night([key])));
  });
});

describe('sameStoredNight', () => {
  test('a night stored before padding is the same night padded, and a different one is not', () => {
    const before = JSON.stringify(night(['flex']));
    expect(sameStoredNight(storedNightText(night(['flex'])), before)).toBe(true);
    expect(sameStoredNight(storedNightText(night(['flex'])), storedNightText(night(['flex'])))).toBe(true);
    expect(sameStoredNight(storedNightText(night(['flex'])), JSON.stringify(night(['nonref'])))).toBe(false);
    expect(sameStoredNight(storedNightText(night(['flex'])), undefined)).toBe(false);
  });
});
