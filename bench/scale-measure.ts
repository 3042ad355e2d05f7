/**
 * `bench:scale`'s cases at every size whose service serves, each interleaved across the sizes
 * (bench/scale-http.ts `interleaved`), in the order the log needs: the reads, the poll of a reader
 * of only `read:catalog` across the night's roll, the platform's writes, then the poll of a
 * reader of only `read:ari` across the property writes.
 */
import { revokeKey } from '../admin/keys.ts';
import { channelReads, emptyPoll, platformWrites, type CaseContext, type SizeCases } from './scale-cases.ts';
import { interleaved, type Send } from './scale-http.ts';
import { issue, type SizeSession } from './scale-size.ts';

/** Each case's samples, by size. */
export type Timings = Map<string, Map<number, number[]>>;

type Serving = SizeSession & { cases: CaseContext };

/** Each size's cases, set up one size after the other (deep cursors, a list walked to its middle). */
async function bySize(sessions: readonly Serving[], make: (session: Serving) => Promise<SizeCases>) {
  const made = new Map<number, SizeCases>();
  for (const session of sessions) made.set(session.size.factor, await make(session));
  return made;
}

async function timeEach(timings: Timings, cases: Map<number, SizeCases>, say: (line: string) => void) {
  const names = Object.keys([...cases.values()][0]!);
  for (const name of names) {
    say(name);
    const sends = new Map<number, Send>([...cases].map(([factor, sizeCases]) => [factor, sizeCases[name]!]));
    timings.set(name, await interleaved(name, sends));
  }
}

export async function measureCases(
  sessions: readonly SizeSession[],
  platformToken: string,
  say: (line: string) => void,
): Promise<Timings> {
  const serving = sessions.filter((session): session is Serving => session.cases !== null);
  const timings: Timings = new Map();
  if (serving.length === 0) return timings;
  await timeEach(timings, await bySize(serving, (session) => channelReads(session.cases)), say);
  const catalog = 'GET /events, an empty poll at the end, only read:catalog';
  await timeEach(
    timings,
    await bySize(serving, async (session) => ({
      [catalog]: await emptyPoll(session.cases, session.cases.keys.catalog, 'catalogue'),
    })),
    say,
  );
  await timeEach(
    timings,
    await bySize(serving, (session) => Promise.resolve(platformWrites(session.cases, platformToken))),
    say,
  );
  const ari = 'GET /events, an empty poll at the end, only read:ari';
  await timeEach(
    timings,
    await bySize(serving, async (session) => {
      await revokeKey(session.stand.deps, session.catalogKeyId);
      const key = (await issue(session, 'read:ari')).key;
      return { [ari]: await emptyPoll(session.cases, key, 'availability') };
    }),
    say,
  );
  return timings;
}
