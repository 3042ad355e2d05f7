/** Reads the Prometheus text format the way a scraper does: one sample per line, `name{labels} value`. */

export async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`scrape of ${url} answered ${res.status}`);
  return res.text();
}

function labelsOf(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const match of text.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, '$1');
  return labels;
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when absent. */
export function sample(exposition: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of exposition.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = labelsOf(match[2] ?? '');
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

/** `sample`, with an absent series read as 0 (a counter not yet incremented). */
export function count(exposition: string, name: string, labels: Record<string, string> = {}): number {
  return sample(exposition, name, labels) ?? 0;
}
