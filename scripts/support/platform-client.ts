import https from 'node:https';

// What the benchmarks and the chaos run share to talk to a running service over HTTPS: one JSON
// call and the smallest property the platform interface takes. Kept outside the service's layers
// (scripts/ and bench/ only).

export interface JsonAnswer {
  status: number;
  /** The parsed body, or undefined when it was empty or not JSON. */
  json: unknown;
  text: string;
}

/** A bearer-authenticated JSON call against `baseUrl`, on the given keep-alive agent; a call with no answer in `timeoutMs` fails. */
export function jsonCaller(baseUrl: string, agent: https.Agent, timeoutMs?: number) {
  return (method: string, route: string, token: string, body?: unknown): Promise<JsonAnswer> => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(new URL(route, baseUrl), {
        method,
        agent,
        headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json, text });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      if (timeoutMs !== undefined) req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${route}: no answer in ${timeoutMs} ms`)));
      req.end(payload);
    });
  };
}

/** The smallest sellable Romanian apartment the platform interface takes, under `prefix` refs. */
export function minimalProperty(prefix: string, units: number): Record<string, unknown> {
  return {
    location: `${prefix}-loc`, owner: `${prefix}-own`, type: 'apartment', units,
    name: { ro: 'Apartament', en: 'Apartment' }, description: { ro: 'Luminos.' },
    capacity: { max_guests: 2, max_adults: 2, max_children: 0, max_infants: 0, bedrooms: 1, bathrooms: 1, beds: [{ type: 'double', count: 1 }] },
    check_in: { from: '15:00', until: '22:00' }, check_out: { until: '11:00' },
    rate_plans: [{ key: 'flex', name: { ro: 'Flexibil' }, currency: 'RON', cancellation: { refundable: true, free_until_days_before: 3, penalty: 'first_night', penalty_percent: null } }],
    city_tax_status: 'none',
    legal: { classification: { certificate_number: `${prefix.charAt(0).toUpperCase()}-1`, category: 'apartament', rating_kind: 'stars', rating: 3, valid_until: '2035-12-31', country: 'RO' } },
    booking: { method: 'redirect', url: `https://${prefix}.example/book` },
    house_rules: { smoking: false, pets: false, parties: false },
  };
}
