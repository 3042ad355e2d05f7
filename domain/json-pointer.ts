/** RFC 6901: `~` and `/` inside a segment are escaped. */
export function jsonPointer(path: readonly PropertyKey[]): string {
  return path.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
