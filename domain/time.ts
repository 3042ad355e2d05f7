/** RFC 3339 UTC with whole seconds and `Z`, as the contract writes every instant. */
export function toInstant(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
