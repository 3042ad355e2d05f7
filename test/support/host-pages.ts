import { expect } from 'vitest';
import { TEST_PLATFORM_TOKEN, type TestApi } from './api.ts';
import { request, type HttpResponse } from './https-client.ts';

export const SESSION_COOKIE = '__Host-svc_host_session';

/**
 * The platform asks for a host link; answered with the link's path (the test API's public origin,
 * https://distribution.test, is not where it listens) and the whole answer.
 */
export async function hostLink(
  api: TestApi,
  organization: string,
  locale?: string,
): Promise<{ path: string; url: string; expiresAt: string }> {
  const res = await api.call('POST', '/internal/v1/host-sessions', {
    key: TEST_PLATFORM_TOKEN,
    body: { organization, ...(locale ? { locale } : {}) },
  });
  expect(res.status, res.text).toBe(201);
  const url = new URL(res.json.url as string);
  return { path: `${url.pathname}${url.search}`, url: res.json.url, expiresAt: res.json.expires_at };
}

/** A request to the host pages carrying a session cookie (and a url-encoded form for POST). */
export function hostRequest(
  api: TestApi,
  method: string,
  path: string,
  options: { cookie?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<HttpResponse> {
  const headers: Record<string, string> = {
    ...(options.cookie ? { cookie: `${SESSION_COOKIE}=${options.cookie}` } : {}),
    ...options.headers,
  };
  if (options.form) headers['content-type'] = 'application/x-www-form-urlencoded';
  return request(api.url, api.ca, method, path, {
    headers,
    ...(options.form ? { rawBody: new URLSearchParams(options.form).toString() } : {}),
  });
}

/** Opens a link and returns the session cookie's value it set. */
export async function openSession(api: TestApi, organization: string, locale?: string): Promise<string> {
  const link = await hostLink(api, organization, locale);
  const res = await hostRequest(api, 'GET', link.path);
  expect(res.status, res.text).toBe(303);
  return cookieValue(res);
}

export function cookieValue(res: HttpResponse): string {
  const match = new RegExp(`${SESSION_COOKIE.replace(/[-_]/g, '\\$&')}=([^;]*)`).exec(res.headers['set-cookie'] ?? '');
  expect(match, 'no session cookie set').not.toBeNull();
  return match![1]!;
}

/** The CSRF token of the first form of a page. */
export function csrfOf(page: HttpResponse): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page.text);
  expect(match, 'no CSRF field on the page').not.toBeNull();
  return match![1]!;
}
