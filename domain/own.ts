/**
 * The value a plain record holds under a key taken from data, or undefined. A bare `record[key]`
 * also finds what every object inherits (`constructor`, `toString`, ...), so a channel, plan or
 * language named like one would read a function instead of nothing.
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
