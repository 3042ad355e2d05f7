import { describe } from 'vitest';
import type {
  CertificationObservations,
  CertificationRule,
  ObservedRequest,
} from '../../domain/certification/rules.ts';
import { at, BASE, describeRuleCases, RANGE, request, type RuleCase } from './fixtures/certification-observations.ts';

// The rules judged from the channel's own requests (the sandbox request log), each rule's table as
// in certification-rules.test.ts: the passing observations changed one way, and the row it gives.

function changeRequest(observations: CertificationObservations, index: number, fields: Partial<ObservedRequest>) {
  const old = observations.requests[index];
  if (!old) throw new Error(`the passing run has no request ${index}`);
  Object.assign(old, fields);
}

function replaceRequest(observations: CertificationObservations, index: number, path: string, status = 200) {
  changeRequest(observations, index, { path, status, code: null });
}

/** The passing run's read of prp_1 after property.updated, and of prp_2's nights. */
const PROPERTY_READ = 2;
const RANGE_READ = 3;

const CASES: Partial<Record<CertificationRule, RuleCase[]>> = {
  rereads_named_resource: [
    {
      name: 'a 200 read 1 s after passes',
      change: () => {},
      outcome: 'passed',
      evidence: /GET \/properties\/prp_1 200, 1.0 s after the event/,
    },
    {
      name: 'a 304 re-read counts',
      change: (o) => replaceRequest(o, PROPERTY_READ, `${BASE}/properties/prp_1?fields=~`, 304),
      outcome: 'passed',
      evidence: /GET \/properties\/prp_1\?fields=~ 304/,
    },
    {
      name: 'a read 0.5 s before the answer counts',
      change: (o) => void (o.requests[PROPERTY_READ]!.receivedAt = at(9.5)),
      outcome: 'passed',
      evidence: /0.5 s before the event/,
    },
    {
      name: 'a read 2 s before the answer does not',
      change: (o) => void (o.requests[PROPERTY_READ]!.receivedAt = at(8)),
      outcome: 'failed',
      evidence: /reads of it: GET \/properties\/prp_1 200, 2.0 s before the event/,
    },
    {
      name: 'a read 31 s after fails',
      change: (o) => void (o.requests[PROPERTY_READ]!.receivedAt = at(41)),
      outcome: 'failed',
      evidence: /from 1 s before to 30 s after .*31.0 s after the event/,
    },
    {
      name: 'a 404 fails',
      change: (o) => replaceRequest(o, PROPERTY_READ, '/properties/prp_1', 404),
      outcome: 'failed',
      evidence: /GET \/properties\/prp_1 404/,
    },
    {
      name: 'a read of another property fails',
      change: (o) => replaceRequest(o, PROPERTY_READ, '/properties/prp_9'),
      outcome: 'failed',
      evidence: /reads of it: GET \/properties\/prp_1 429 rate_limited, 52.0 s after the event/,
    },
    {
      name: 'no property.updated fails',
      change: (o) => void (o.propertyUpdated = null),
      outcome: 'failed',
      evidence: /No property.updated delivery/,
    },
  ],
  rereads_announced_range: [
    {
      name: 'one read of the exact range passes',
      change: () => {},
      outcome: 'passed',
      evidence: /Announced 2026-12-10 to 2026-12-20 \(exclusive\), covered by: GET \/availability\?property_id=prp_2/,
    },
    {
      name: 'availability covered by two windows passes',
      change: (o) => {
        replaceRequest(o, RANGE_READ, `/availability?property_id=prp_2&from=2026-12-15&to=2026-12-25`);
        o.requests.push(request('GET', `${BASE}/properties/prp_2/availability?from=2026-12-01&to=2026-12-15`, 200, 22));
      },
      outcome: 'passed',
      evidence: /covered by: .*from=2026-12-15.*; .*from=2026-12-01/,
    },
    {
      name: 'two windows with a gap fail, naming the first unread night',
      change: (o) => {
        replaceRequest(o, RANGE_READ, `/availability?property_id=prp_2&from=2026-12-10&to=2026-12-14`);
        o.requests.push(request('GET', `/availability?property_id=prp_2&from=2026-12-15&to=2026-12-20`, 200, 22));
      },
      outcome: 'failed',
      evidence: /leave nights from 2026-12-14 unread/,
    },
    {
      name: 'a read without from and to reads the whole kept window',
      change: (o) => replaceRequest(o, RANGE_READ, '/availability?property_id=prp_2'),
      outcome: 'passed',
      evidence: /covered by/,
    },
    {
      name: 'a read of every property does not name it',
      change: (o) => replaceRequest(o, RANGE_READ, `/availability?from=${RANGE.from}&to=${RANGE.to}`),
      outcome: 'failed',
      evidence: /No read of prp_2's availability answered 2xx or 304 within 30 s/,
    },
    {
      name: 'a read 31 s after fails',
      change: (o) => void (o.requests[RANGE_READ]!.receivedAt = at(51)),
      outcome: 'failed',
      evidence: /No read of prp_2's availability/,
    },
    {
      name: 'a 400 read fails',
      change: (o) => void (o.requests[RANGE_READ]!.status = 400),
      outcome: 'failed',
      evidence: /No read of prp_2's availability/,
    },
    {
      name: 'no availability.updated fails',
      change: (o) => void (o.availabilityUpdated = null),
      outcome: 'failed',
      evidence: /No availability.updated delivery/,
    },
  ],
  pages_with_cursor: [
    {
      name: 'a list read with cursor= passes',
      change: () => {},
      outcome: 'passed',
      evidence: /GET \/locations with cursor= 200 at 2026-12-01T10:00:02.000Z/,
    },
    {
      name: 'without it fails',
      change: (o) => void o.requests.splice(1, 1),
      outcome: 'failed',
      evidence: /No GET of a list \(\/properties, \/locations, \/owners, \/amenities\) with cursor=/,
    },
    {
      name: 'a refused one fails',
      change: (o) => changeRequest(o, 1, { status: 400, code: 'invalid_cursor' }),
      outcome: 'failed',
      evidence: /with cursor= 400 invalid_cursor/,
    },
    {
      name: 'availability is not a catalogue list',
      change: (o) => replaceRequest(o, 1, '/availability?cursor=c_abc'),
      outcome: 'failed',
      evidence: /No GET of a list/,
    },
  ],
  resumes_with_updated_since: [
    {
      name: 'a list read with updated_since= passes',
      change: () => {},
      outcome: 'passed',
      evidence: /GET \/locations with updated_since= 200/,
    },
    {
      name: 'a 410 fails',
      change: (o) => changeRequest(o, 0, { status: 410, code: 'sync_window_expired' }),
      outcome: 'failed',
      evidence: /410 sync_window_expired/,
    },
    {
      name: 'without it fails',
      change: (o) => void o.requests.shift(),
      outcome: 'failed',
      evidence: /No GET of a list .* with updated_since=/,
    },
  ],
  honours_retry_after: [
    {
      name: 'a 429, then the same read after the window, passes',
      change: () => {},
      outcome: 'passed',
      evidence:
        /GET \/properties\/prp_1 answered 429 rate_limited at 2026-12-01T10:01:02.000Z \(Retry-After 13 s.*made again 1.0 s after the window ended, answered 200/,
    },
    {
      name: 'a repeat of the same path before the window end fails',
      change: (o) => void o.requests.splice(6, 0, request('GET', `${BASE}/properties/prp_1`, 429, 63, 'rate_limited')),
      outcome: 'failed',
      evidence: /repeated before the window ended: GET \/properties\/prp_1 429 rate_limited, 1.0 s after its 429/,
    },
    {
      name: 'a different path before the window end does not fail',
      change: (o) =>
        void o.requests.splice(
          6,
          0,
          request('GET', `${BASE}/sandbox/certifications/x`, 200, 63),
          request('GET', '/locations', 429, 64, 'rate_limited'),
        ),
      outcome: 'passed',
      evidence: /made again/,
    },
    {
      name: 'not reading it again after the window fails',
      change: (o) => void o.requests.pop(),
      outcome: 'failed',
      evidence: /not made again after the window ended/,
    },
    {
      name: 'no 429 fails',
      change: (o) => void (o.requests[5]!.status = 200),
      outcome: 'failed',
      evidence: /No request outside \/sandbox\/ was answered 429 rate_limited/,
    },
    {
      name: 'a 429 of failed authentications is not the rate limit',
      change: (o) => void (o.requests[5]!.code = 'too_many_failed_authentications'),
      outcome: 'failed',
      evidence: /No request outside/,
    },
    {
      name: 'a 429 before the window was filled does not count',
      change: (o) => void (o.requests[5]!.receivedAt = at(59)),
      outcome: 'failed',
      evidence: /No request outside/,
    },
    {
      name: 'no throttle fails',
      change: (o) => void (o.throttle = null),
      outcome: 'failed',
      evidence: /did not fill the rate window/,
    },
  ],
  stops_reading_withdrawn: [
    {
      name: 'a read of the tombstone after withdrawal is allowed',
      change: () => {},
      outcome: 'passed',
      evidence: /No read below \/properties\/prp_3 .*; 1 read\(s\) of \/properties\/prp_3 itself, the tombstone/,
    },
    {
      name: 'its availability after withdrawal is not',
      change: (o) => void o.requests.push(request('GET', `${BASE}/properties/prp_3/availability`, 404, 33)),
      outcome: 'failed',
      evidence:
        /1 read\(s\) of \/properties\/prp_3's nights or parts .*GET \/properties\/prp_3\/availability 404, 3.0 s after the event/,
    },
    {
      name: 'its availability by property_id after withdrawal is not',
      change: (o) => void o.requests.push(request('GET', '/availability?property_id=prp_3', 200, 35)),
      outcome: 'failed',
      evidence: /availability\?property_id=prp_3 200/,
    },
    {
      name: 'a read below it after the watch, once the run distributed it again, is allowed',
      change: (o) => void o.requests.push(request('GET', '/properties/prp_3/availability', 200, 200)),
      outcome: 'passed',
      evidence: /No read below/,
    },
    {
      name: 'a read below it before the withdrawal is fine',
      change: (o) => void o.requests.unshift(request('GET', '/properties/prp_3/availability', 200, 0)),
      outcome: 'passed',
      evidence: /No read below/,
    },
    {
      name: 'reporting the listing (a write) is not a read',
      change: (o) => void o.requests.push(request('PUT', '/properties/prp_3/listing', 200, 34)),
      outcome: 'passed',
      evidence: /No read below/,
    },
    {
      name: 'no withdrawal fails',
      change: (o) => void (o.withdrawn = null),
      outcome: 'failed',
      evidence: /No property.withdrawn delivery/,
    },
  ],
};

describe("judge, from the channel's requests", () => {
  describeRuleCases(CASES);
});
