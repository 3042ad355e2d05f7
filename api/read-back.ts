import { z } from 'zod';
import type { ParameterError } from '../domain/problems.ts';

/**
 * A whole-record write takes back what its own read answered: a client reads a record, changes a
 * field and sends the whole answer back. Without this, every client would have to know and strip
 * the fields only the service sets, and would break each time a read gained one.
 */
export interface ReadBack {
  /**
   * Fields the read answers and only the service sets, each with the shape the read answers it
   * in: accepted in that shape, then dropped, never compared with what is stored.
   */
  readOnly: Record<string, z.ZodType>;
  /** The body field naming the record, which may be sent back only with the value the path names. */
  identity?: { field: string; param: string };
}

/** Any RFC 3339 instant: what the read answered, or a value copied through a client that reformatted it. */
export const ReadBackInstant = z.iso.datetime({
  offset: true,
  message: 'an RFC 3339 instant such as 2026-11-22T09:30:00Z',
});

const NOTE = 'Read-only: answered by the read, accepted back on this write in that shape and ignored.';

/**
 * The write's body schema with the read-back fields added as optional and `readOnly` (so the
 * description tells a client they are ignored), and dropped from the parsed value, so a handler
 * sees exactly what it saw before. Unknown fields stay refused: the body schema is still strict.
 */
export function withReadBack<T>(body: z.ZodType<T>, readBack: ReadBack): z.ZodType<T> {
  if (!(body instanceof z.ZodObject)) throw new Error('a read-back is declared on an object body');
  const fields: Record<string, z.ZodType> = {};
  for (const [name, schema] of Object.entries(readBack.readOnly)) {
    fields[name] = schema
      .optional()
      .meta({ readOnly: true, description: `${schema.description ?? ''} ${NOTE}`.trim() });
  }
  const identity = readBack.identity;
  if (identity) {
    fields[identity.field] = z
      .string()
      .optional()
      .meta({
        readOnly: true,
        description: `As the read answers it. When sent, it equals the path's \`${identity.param}\` (rule code \`path_mismatch\`).`,
      });
  }
  const dropped = Object.keys(fields);
  const clash = dropped.filter((name) => name in body.shape);
  if (clash.length > 0) throw new Error(`read-back fields ${clash.join(', ')} are fields the write takes`);
  const meta = body.meta();
  const extended = body.safeExtend(fields);
  const withoutReadBack = extended.transform(
    (value) => Object.fromEntries(Object.entries(value).filter(([name]) => !dropped.includes(name))) as T,
  );
  return meta ? withoutReadBack.meta(meta) : withoutReadBack;
}

/** The refusal of a body whose identity field names another record than the path. */
export function readBackErrors(readBack: ReadBack | undefined, params: unknown, body: unknown): ParameterError[] {
  const identity = readBack?.identity;
  if (!identity || body === null || typeof body !== 'object') return [];
  const sent = (body as Record<string, unknown>)[identity.field];
  const named = (params as Record<string, unknown> | undefined)?.[identity.param];
  if (typeof sent !== 'string' || sent === named) return [];
  return [
    {
      pointer: `/${identity.field}`,
      code: 'path_mismatch',
      detail: `\`${identity.field}\` names another record than the path's \`${identity.param}\``,
    },
  ];
}
