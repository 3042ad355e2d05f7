import { createRemoteJWKSet, customFetch } from 'jose';
import type { Fetch } from './https-fetch.ts';

/**
 * The few calls this channel makes to the distribution API, with its own key:
 * - the JWKS that signs owner-connect tokens (`GET /owner-connect/keys`),
 * - an owner, found by paging `GET /owners` (the contract has no read of one owner by id),
 * - `PUT /owners/{owner_id}/connection` `{token}`, the confirmation.
 */

export interface Owner {
  id: string;
  status: string;
  display_name: string;
  connected_at: string | null;
}

export interface Connection {
  owner_id: string;
  connected_at: string;
  property_ids: string[];
  token_id: string;
}

/** A refusal of the API: the RFC 9457 problem's `code` and `status` are what a channel branches on. */
export class ApiRefusal extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, title: string) {
    super(`${status} ${code}: ${title}`);
    this.status = status;
    this.code = code;
  }
}

export function distributionClient(options: { apiBaseUrl: string; apiKey: string; fetch: Fetch }) {
  const base = options.apiBaseUrl.replace(/\/+$/, '');
  const auth = { authorization: `Bearer ${options.apiKey}` };

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await options.fetch(`${base}${path}`, {
      method,
      headers: {
        ...auth,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) {
      const problem = (text ? JSON.parse(text) : {}) as { code?: string; title?: string };
      throw new ApiRefusal(res.status, problem.code ?? 'unknown', problem.title ?? res.statusText);
    }
    return JSON.parse(text) as T;
  }

  return {
    /**
     * The signing keys. jose fetches them on first use, again when a token names an unknown `kid`
     * (at most every 30 s), and keeps them 10 minutes; the service publishes a key 24 hours
     * before it signs, so a new key is always found.
     */
    jwks: createRemoteJWKSet(new URL(`${base}/owner-connect/keys`), { headers: auth, [customFetch]: options.fetch }),

    /** The owner with this id as this channel sees it, or null (not distributed to us, withdrawn, unknown). */
    async findOwner(ownerId: string): Promise<Owner | null> {
      let cursor: string | null = null;
      // Bounded: 200 pages of 500 owners.
      for (let page = 0; page < 200; page += 1) {
        const query: string = cursor === null ? '?limit=500' : `?limit=500&cursor=${encodeURIComponent(cursor)}`;
        const answer = await call<{ data: Owner[]; next_cursor: string | null }>('GET', `/owners${query}`);
        const found = answer.data.find((owner) => owner.id === ownerId);
        if (found) return ['active', 'inactive'].includes(found.status) ? found : null;
        if (answer.next_cursor === null) return null;
        cursor = answer.next_cursor;
      }
      return null;
    },

    /** Confirms the token: the owner is connected to our account from now on. */
    confirmConnection(ownerId: string, token: string): Promise<Connection> {
      return call<Connection>('PUT', `/owners/${encodeURIComponent(ownerId)}/connection`, { token });
    },
  };
}

export type DistributionClient = ReturnType<typeof distributionClient>;
