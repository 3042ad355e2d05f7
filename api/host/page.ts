import type { Request, Response } from 'express';
import type { HostLocale } from '../../domain/host-locale.ts';
import type { HostSessionView } from '../../services/host-sessions.ts';
import type { AppDeps } from '../context.ts';
import type { SafeHtml } from './html.ts';
import type { MessageKey, Translate } from './i18n.ts';

/** What a host page's handler is given: the live session, its language, the request's form. */
export interface HostPageContext {
  deps: AppDeps;
  req: Request;
  res: Response;
  session: HostSessionView;
  locale: HostLocale;
  t: Translate;
  /** This answer's CSP nonce (for a whole document a page writes itself). */
  nonce: string;
  /** Path parameters, as Express matched them. */
  params: Record<string, string>;
  /** The url-encoded form of a POST, string fields only (its CSRF token already checked). */
  form: Record<string, string>;
}

export type HostPageResult =
  /** Content for the layout: `title` is the page's h1 and document title, `body` goes in <main>. */
  | { kind: 'page'; title: string; body: SafeHtml; status?: number }
  /** 303 See Other (after a POST), to a path under the host pages. */
  | { kind: 'redirect'; location: string }
  /** A whole document with its own policy (the hand-off page's auto-submitting form). */
  | { kind: 'document'; html: string; policy: string };

/**
 * One host page: a method and a path under `/host` (Express syntax, `:name` parameters) and its
 * handler. Every page needs a live session; every POST also needs the session's CSRF token.
 */
export interface HostPage {
  method: 'get' | 'post';
  path: string;
  handler: (ctx: HostPageContext) => Promise<HostPageResult>;
}

export function definePage(page: HostPage): HostPage {
  return page;
}

/** A refusal a page throws; shown as a page with this status, title and text (nothing else leaks). */
export class HostPageError extends Error {
  readonly status: number;
  readonly titleKey: MessageKey;
  readonly bodyKey: MessageKey;
  constructor(status: number, titleKey: MessageKey, bodyKey: MessageKey) {
    super(titleKey);
    this.status = status;
    this.titleKey = titleKey;
    this.bodyKey = bodyKey;
  }
}

export const notFoundPage = () => new HostPageError(404, 'not_found.title', 'not_found.body');
