import os from 'node:os';

/**
 * The machine a benchmark ran on, as every `npm run bench:*` prints it: CPU, cores, memory, Node,
 * the system, and the load averages over 1, 5 and 15 minutes when the figures were printed (a
 * load above the number of cores means the figures shared the machine with other work).
 */
export function machine(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model,
    cores: cpus.length,
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    load_average: os.loadavg().map((load) => Number(load.toFixed(2))),
    ...extra,
  };
}
