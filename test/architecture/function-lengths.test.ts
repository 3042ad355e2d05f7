import { expect, test } from 'vitest';
import { functionLengths } from '../support/function-lengths.ts';

// A function long enough to hold several steps and the state they share is split along its seams
// (docs/architecture.md). `npm run -s longest-functions` lists the longest.
const MAX_FUNCTION_LINES = 110;
/** Data, not logic: the demo catalogue's records are literal objects built by one function each. */
const DATA = 'admin/demo-catalogue.ts';

test(`no function of the service's code is over ${MAX_FUNCTION_LINES} lines, data builders aside`, () => {
  const long = functionLengths().filter((fn) => fn.lines > MAX_FUNCTION_LINES && fn.file !== DATA);
  expect(long.map((fn) => `${fn.file}:${fn.name}: ${fn.lines}`)).toEqual([]);
});
