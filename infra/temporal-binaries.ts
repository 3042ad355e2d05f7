import { accessSync, constants } from 'node:fs';
import path from 'node:path';

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * Where the Temporal binaries are: the named variable, else PATH, else undefined so the SDK
 * downloads its own (which needs the open internet).
 */
export function temporalExecutable(kind: 'cli' | 'test-server'): { type: 'existing-path'; path: string } | undefined {
  const [variable, name] =
    kind === 'cli' ? ['TEMPORAL_CLI', 'temporal'] : ['TEMPORAL_TEST_SERVER', 'temporal-test-server'];
  const found = process.env[variable] || onPath(name);
  return found ? { type: 'existing-path', path: found } : undefined;
}
