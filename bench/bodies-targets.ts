/**
 * The targets of `npm run bench:bodies` (bench/bodies.ts): every body-taking operation of an
 * interface, its path filled so that the body's own rules run, its size limit and the keys its
 * body schema names; and a host session's cookie for the forms.
 */
import https from 'node:https';
import type { z } from 'zod';

export interface Target {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  limit: number;
  json: boolean;
  keys: string[];
  arrayKey: string | undefined;
}

/** The zod type's definition, through the wrappers a body schema may carry. */
function unwrap(schema: unknown): {
  type?: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  in?: unknown;
} {
  let def = (schema as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def ?? {};
  for (let i = 0; i < 5; i++) {
    const inner = def.innerType ?? def.in;
    if (!inner || def.type === 'object' || def.type === 'array') break;
    def = (inner as { _zod: { def: Record<string, unknown> } })._zod.def;
  }
  return def;
}

/** The body's top-level keys, and one whose value is an array, from the operation's schema. */
function bodyKeys(schema: z.ZodType | undefined): { keys: string[]; arrayKey: string | undefined } {
  const def = unwrap(schema);
  const shape = def.shape ?? {};
  const keys = Object.keys(shape);
  const arrayKey = keys.find((key) => unwrap(shape[key]).type === 'array');
  return { keys: keys.length > 0 ? keys : ['a'], arrayKey };
}

/** A path's parameters filled with values of the right shape, so the body's own rules run. */
function fillPath(path: string): string {
  const PREFIX: Record<string, string> = {
    owner_id: 'own',
    property_id: 'prp',
    location_id: 'loc',
    webhook_id: 'whk',
    delivery_id: 'dlv',
  };
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const prefix = PREFIX[name];
    return prefix ? `${prefix}_0${'0'.repeat(25)}` : 'bench-ref';
  });
}

export function operationTargets(
  interfaceName: string,
  base: string,
  operations: readonly { method: string; path: string; body?: z.ZodType; bodyLimit?: number }[],
  headers: Record<string, string>,
  defaultLimit: number,
  all = false,
): Target[] {
  return operations
    .filter((operation) => all || operation.body !== undefined)
    .map((operation) => ({
      name: `${interfaceName} ${operation.method.toUpperCase()} ${operation.path}`,
      method: operation.method.toUpperCase(),
      path: `${base}${fillPath(operation.path)}`,
      headers: { ...headers, 'content-type': 'application/json' },
      limit: operation.bodyLimit ?? defaultLimit,
      json: true,
      ...bodyKeys(operation.body),
    }));
}

/** A host session's cookie, from a link the platform asked for. */
export function hostCookie(url: string, ca: string, link: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const target = new URL(link);
    https
      .get(new URL(`${target.pathname}${target.search}`, url), { ca }, (res) => {
        res.resume();
        const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0]?.split(';')[0];
        if (cookie) resolve(cookie);
        else reject(new Error(`no session cookie (${res.statusCode})`));
      })
      .on('error', reject);
  });
}
