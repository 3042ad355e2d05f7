import { isHostLocale } from '../../../domain/host-locale.ts';
import { endHostSession, switchHostLocale } from '../../../services/host-sessions.ts';
import { clearSessionCookie } from '../cookies.ts';
import { definePage } from '../page.ts';
import { HOST_BASE } from '../paths.ts';

/** A path back into the host pages, never elsewhere (an open redirect would send hosts anywhere). */
function safeReturn(path: string | undefined): string {
  return path !== undefined && path.startsWith(`${HOST_BASE}/`) && !/[\\\s]|\/\//.test(path) ? path : `${HOST_BASE}/`;
}

/** Ends the session server-side and clears the cookie. */
export const signOutPage = definePage({
  method: 'post',
  path: '/logout',
  handler: async ({ deps, session, res }) => {
    await endHostSession(deps, session);
    clearSessionCookie(res);
    return { kind: 'redirect', location: `${HOST_BASE}/signed-out` };
  },
});

/** Switches the session's language and goes back where the host was. */
export const localePage = definePage({
  method: 'post',
  path: '/locale',
  handler: async ({ deps, session, form }) => {
    if (isHostLocale(form.locale)) await switchHostLocale(deps, session, form.locale);
    return { kind: 'redirect', location: safeReturn(form.return_to) };
  },
});
