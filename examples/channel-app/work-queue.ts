/**
 * The app's catalogue work, one task at a time in the order it came: the reads webhooks ask for
 * and the periodic sync's passes. The service's rate limit is the channel's, not a request's: a
 * 429 answered to one read holds for every other, and reads run side by side would each meet it
 * (and the same resource be read twice at once for two events naming it). One after another,
 * the read that met the 429 waits out its `Retry-After` and nothing is sent meanwhile. A real
 * channel keeps this queue durably, in its database or a message broker.
 */
export type Work = <T>(task: () => Promise<T>) => Promise<T>;

export function serialWork(): Work {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
