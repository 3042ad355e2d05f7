import type { Client, MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from './generated/schema.ts';

type PageBody<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer Body } } } };
}
  ? Body
  : never;

/** The paths whose `GET` answers a page: `{data, next_cursor}` (and `has_more` for the event log). */
export type ListPath = {
  [P in keyof paths]: PageBody<P> extends { data: unknown[]; next_cursor: string | null } ? P : never;
}[keyof paths];
export type ListPage<P extends ListPath> = PageBody<P>;
export type ListItem<P extends ListPath> = PageBody<P> extends { data: (infer Item)[] } ? Item : never;
export type ListInit<P extends ListPath> = NonNullable<MaybeOptionalInit<paths[P], 'get'>>;

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** The call's options, required when the path has a parameter (`/webhooks/{webhook_id}/deliveries`). */
export type ListArgs<P extends ListPath> =
  RequiredKeys<ListInit<P>> extends never ? [init?: ListInit<P>] : [init: ListInit<P>];

export interface Pager {
  /**
   * Every record of a list, page after page: from `cursor` when the query has one, else from the
   * start, to the end (`next_cursor` null, or for the event log `has_more` false). The next page
   * is asked for as soon as a page's headers name it (`Link: <…>; rel="next"`), while this one's
   * body is still read; leaving the loop early cancels it.
   */
  paginate<P extends ListPath>(path: P, ...init: ListArgs<P>): AsyncGenerator<ListItem<P>, void, undefined>;
  /** The same walk, a page at a time (`next_cursor` included: the event log's position to poll from). */
  pages<P extends ListPath>(path: P, ...init: ListArgs<P>): AsyncGenerator<ListPage<P>, void, undefined>;
}

interface LooseInit {
  params?: { query?: Record<string, unknown>; path?: Record<string, unknown> };
  signal?: AbortSignal | null;
  [option: string]: unknown;
}
type LooseGet = (path: string, init: LooseInit) => Promise<{ response: Response }>;
interface AnyPage {
  data: unknown[];
  next_cursor: string | null;
  has_more?: boolean;
}

/** The cursor a `Link: <…>; rel="next"` header names, if any. */
export function linkedCursor(link: string | null, base: string): string | undefined {
  if (!link) return undefined;
  for (const [, target, params] of link.matchAll(/<([^>]*)>((?:\s*;[^,;]*)*)/g)) {
    const rel = /;\s*rel\s*=\s*"?([^";]*)"?/i.exec(params ?? '')?.[1] ?? '';
    if (!rel.split(/\s+/).includes('next')) continue;
    return new URL(target ?? '', base).searchParams.get('cursor') ?? undefined;
  }
  return undefined;
}

/** Where the walk goes after `page`: null at the end. */
function continuation(page: AnyPage): string | null {
  if (page.has_more === false) return null;
  return page.next_cursor;
}

function combined(own: AbortSignal, theirs: AbortSignal | null | undefined): AbortSignal {
  if (!theirs) return own;
  // AbortSignal.any: Node 20.3 and later.
  return typeof AbortSignal.any === 'function' ? AbortSignal.any([own, theirs]) : theirs;
}

export function pager(client: Client<paths, 'application/json'>): Pager {
  const get = client.GET as unknown as LooseGet;

  async function* walk(path: string, init: LooseInit = {}): AsyncGenerator<AnyPage, void, undefined> {
    const ask = (cursor: string | undefined) => {
      const controller = new AbortController();
      const query = { ...init.params?.query, ...(cursor === undefined ? {} : { cursor }) };
      const answer = get(path, {
        ...init,
        params: { ...init.params, query },
        parseAs: 'stream',
        signal: combined(controller.signal, init.signal),
      });
      // Awaited below; a page asked for ahead and then abandoned must not be an unhandled rejection.
      answer.catch(() => undefined);
      return { answer, controller };
    };
    let pending: ReturnType<typeof ask> | undefined = ask(undefined);
    try {
      while (pending) {
        const { response } = await pending.answer;
        const linked = linkedCursor(response.headers.get('link'), response.url || 'http://localhost/');
        let next = linked === undefined ? undefined : ask(linked);
        const page = (await response.json()) as AnyPage;
        if (!next) {
          const cursor = continuation(page);
          if (cursor !== null) next = ask(cursor);
        }
        pending = next;
        yield page;
      }
    } finally {
      pending?.controller.abort();
    }
  }

  return {
    pages: ((path: string, init?: LooseInit) => walk(path, init)) as Pager['pages'],
    paginate: async function* (path: string, init?: LooseInit) {
      for await (const page of walk(path, init)) yield* page.data;
    } as Pager['paginate'],
  };
}
