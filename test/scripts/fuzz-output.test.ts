import { describe, expect, test } from 'vitest';
import { withoutPytestBanner } from '../../scripts/fuzz-output.ts';

describe("the fuzz run's copy of Schemathesis's report", () => {
  test('the closing banner keeps its words but not the form of a pytest summary', () => {
    const line = withoutPytestBanner(
      '============================ 2 warnings in 150.01s =============================',
    );
    expect(line).toBe('---------------------------- 2 warnings in 150.01s -----------------------------');
    expect(line).not.toMatch(/^=+ .* =+$/);
  });

  test('section banners are drawn in dashes too', () => {
    expect(
      withoutPytestBanner('=================================== SUMMARY ===================================='),
    ).toBe('----------------------------------- SUMMARY ------------------------------------');
  });

  test.each([['  10984 generated, 10984 passed'], ['a == b == c'], ['====='], ['']])(
    'any other line passes as it is: %j',
    (line) => {
      expect(withoutPytestBanner(line)).toBe(line);
    },
  );
});
