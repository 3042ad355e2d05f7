import type { Clock } from '../../domain/clock.ts';

/** Where a test bed's clock starts unless the test gives its own (test/support/api-bed.ts). */
export const BED_INSTANT = '2026-11-22T10:00:00Z';

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  private current: number;
  constructor(start: Date | string = new Date()) {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/** The wall clock in `zone` at an instant, `YYYY-MM-DD HH:MM`. */
export function wallClock(instant: number, zone: string): string {
  return new Intl.DateTimeFormat('sv-SE', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(instant));
}
