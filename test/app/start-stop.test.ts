import { expect, test } from 'vitest';
import {
  dataDir,
  freePort,
  pidNaming,
  portIsFree,
  processesNaming,
  runStart,
  startEnv,
  type StartProcess,
} from '../support/start-process.ts';

// Ctrl-C (SIGINT to the terminal's process group) and SIGTERM stop every child `npm start` made,
// whenever they come: ten starts on one data directory and one set of ports, each stopped at
// another moment, each followed by a start that needs the same ports.

type Moment = { name: string; at: (start: StartProcess, dir: string) => Promise<void> };
const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const MOMENTS: Moment[] = [
  // Soon after launch (its handlers are in place some 100 ms after it is spawned): nothing or initdb runs.
  { name: 'soon after it is launched', at: () => after(700) },
  // The first start makes the cluster: its initdb runs about now, else the server starts.
  { name: 'while the cluster or the server starts', at: () => after(1_500) },
  { name: 'as soon as the postmaster exists', at: (_, dir) => pidNaming(`-D ${dir}/postgres -p`).then(() => {}) },
  { name: 'once PostgreSQL answers', at: (start) => start.printed('embedded PostgreSQL at') },
  { name: 'as soon as the dev server exists', at: (_, dir) => pidNaming(`${dir}/temporal.sqlite`).then(() => {}) },
  {
    name: 'while the dev server gets ready',
    at: (_, dir) => pidNaming(`${dir}/temporal.sqlite`).then(() => after(400)),
  },
  {
    name: 'while the worker is made',
    at: (_, dir) => pidNaming(`${dir}/temporal.sqlite`).then(() => after(2_000)),
  },
  {
    name: 'while the API starts',
    at: (_, dir) => pidNaming(`${dir}/temporal.sqlite`).then(() => after(4_000)),
  },
  { name: 'once it is up', at: (start) => start.printed('Ctrl-C stops everything.') },
  { name: 'a while after it is up', at: (start) => start.printed('Ctrl-C stops everything.').then(() => after(1_500)) },
];

test('ten starts, each stopped at another moment by Ctrl-C or SIGTERM, leave no child running and every port free', async () => {
  const dir = await dataDir();
  const ports = {
    EMBEDDED_PG_PORT: String(await freePort()),
    EMBEDDED_TEMPORAL_PORT: String(await freePort()),
    EMBEDDED_TEMPORAL_UI_PORT: String(await freePort()),
    PORT: String(await freePort()),
    HTTP_PORT: String(await freePort()),
  };
  const env = { ...(await startEnv({ DATABASE_URL: undefined, ...ports })), DATA_DIR: dir };
  const outcomes: string[] = [];
  for (const [i, moment] of MOMENTS.entries()) {
    const how = i % 2 === 0 ? 'Ctrl-C' : 'SIGTERM';
    const start = runStart(env);
    await moment.at(start, dir);
    if (how === 'Ctrl-C') start.interrupt();
    else start.terminate();
    const exit = await start.exit(60_000);
    const left = await processesNaming(dir);
    const held = [];
    for (const [variable, port] of Object.entries(ports)) if (!(await portIsFree(Number(port)))) held.push(variable);
    const { stderr } = start.output();
    outcomes.push(
      `${how} ${moment.name}: exit ${String(exit.code)}${exit.signal ? ` (${exit.signal})` : ''}` +
        `${left.length ? `; left running: ${left.join(', ')}` : ''}${held.length ? `; held: ${held.join(', ')}` : ''}` +
        `${stderr.trim() ? `; stderr: ${stderr.trim()}` : ''}`,
    );
  }
  expect(outcomes).toEqual(MOMENTS.map((moment, i) => `${i % 2 === 0 ? 'Ctrl-C' : 'SIGTERM'} ${moment.name}: exit 0`));
}, 600_000);
