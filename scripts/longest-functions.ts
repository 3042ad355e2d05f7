/**
 * `npm run -s longest-functions [-- N]`: the N longest functions of the service's code (default
 * 15), by lines, with their file: where a split along a seam pays most. The same measure holds the
 * limit in test/architecture/function-lengths.test.ts.
 */
import { functionLengths } from '../test/support/function-lengths.ts';

const count = Number(process.argv[2] ?? 15);
for (const { lines, file, name } of functionLengths().slice(0, count))
  console.log(`${String(lines).padStart(4)}  ${file}:${name}`);
