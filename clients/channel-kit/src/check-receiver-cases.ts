import type { ReceiverRule } from './receiver-rules.ts';
import { newId, newWebhookSecret, signedHeaders } from './signing.ts';

/**
 * The deliveries `check-receiver` sends, one case per thing a receiver rule implies, the first a
 * correctly signed delivery every later case builds on; and what to change when a case fails.
 */

export type CaseId =
  | 'valid'
  | 'laid-out'
  | 'other-secret'
  | 'no-signature'
  | 'altered-body'
  | 'six-minutes-ago'
  | 'six-minutes-ahead'
  | 'second-matching'
  | 'first-matching'
  | 'previous-secret'
  | 'duplicate'
  | 'unknown-type'
  | 'unknown-fields';

export interface Delivery {
  id: string;
  body: string;
  /** When it was signed; sent as `webhook-timestamp`. */
  at: Date;
  signature?: string | null;
}

export interface Case {
  id: CaseId;
  rule: ReceiverRule;
  check: string;
  expected: 'accepted' | 'refused';
  deliveries: () => Delivery[];
}

const SIX_MINUTES = 6 * 60 * 1000;

/** Every case, the correctly signed delivery first; with a previous secret, one signed with that alone too. */
export function receiverCases(secret: string, previousSecret: string | undefined, channel: string): Case[] {
  const stranger = newWebhookSecret();
  const event = (type = 'property.updated', extra: Record<string, unknown> = {}, data: Record<string, unknown> = {}) =>
    JSON.stringify({
      id: newId('evt_'),
      type,
      occurred_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      channel,
      data: { object: 'property', id: newId('prp_'), version: 2, ...data },
      ...extra,
    });
  const signed = (body: string, secrets: string[] = [secret], at = new Date()): Delivery => {
    const id = (JSON.parse(body) as { id: string }).id;
    return { id, body, at, signature: signedHeaders(secrets, id, at, body)['webhook-signature'] };
  };
  const refused = (id: CaseId, rule: ReceiverRule, check: string, deliveries: () => Delivery[]): Case => ({
    id,
    rule,
    check,
    expected: 'refused',
    deliveries,
  });
  const accepted = (id: CaseId, rule: ReceiverRule, check: string, deliveries: () => Delivery[]): Case => ({
    id,
    rule,
    check,
    expected: 'accepted',
    deliveries,
  });
  const list: Case[] = [
    accepted('valid', 'answer', 'a valid delivery is answered 2xx in time', () => [signed(event())]),
    accepted('laid-out', 'raw-body', 'a valid delivery laid out with spaces and another key order is accepted', () => {
      const parsed = JSON.parse(event()) as Record<string, unknown>;
      const reordered = { data: parsed.data, type: parsed.type, id: parsed.id };
      return [signed(JSON.stringify({ ...reordered, occurred_at: parsed.occurred_at, channel }, null, 1) + '\n')];
    }),
    refused('other-secret', 'signature', 'a delivery signed with another secret is refused', () => [
      signed(event(), [stranger]),
    ]),
    refused('no-signature', 'signature', 'a delivery without webhook-signature is refused', () => [
      { ...signed(event()), signature: null },
    ]),
    refused('altered-body', 'signature', 'a delivery whose body changed after signing is refused', () => {
      const delivery = signed(event());
      return [{ ...delivery, body: delivery.body.replace('"version":2', '"version":3') }];
    }),
    refused('six-minutes-ago', 'timestamp', 'a delivery signed six minutes ago is refused', () => [
      signed(event(), [secret], new Date(Date.now() - SIX_MINUTES)),
    ]),
    refused('six-minutes-ahead', 'timestamp', 'a delivery signed six minutes ahead is refused', () => [
      signed(event(), [secret], new Date(Date.now() + SIX_MINUTES)),
    ]),
    accepted('second-matching', 'rotation', 'two signatures, the second matching, are accepted', () => [
      signed(event(), [stranger, secret]),
    ]),
    accepted('first-matching', 'rotation', 'two signatures, the first matching, are accepted', () => [
      signed(event(), [secret, stranger]),
    ]),
  ];
  if (previousSecret) {
    const previous = previousSecret;
    list.push(
      accepted('previous-secret', 'rotation', 'a delivery signed with the previous secret alone is accepted', () => [
        signed(event(), [previous]),
      ]),
    );
  }
  list.push(
    accepted('duplicate', 'duplicates', 'the same webhook-id delivered twice is answered 2xx both times', () => {
      const body = event();
      // The second is signed again, later, as a retry is.
      return [signed(body), signed(body, [secret], new Date(Date.now() + 1000))];
    }),
    accepted('unknown-type', 'unknown-types', 'an event type this receiver cannot know is accepted', () => [
      signed(event('listing.checked', {}, { object: 'listing' })),
    ]),
    accepted('unknown-fields', 'unknown-fields', 'an event with fields this receiver cannot know is accepted', () => [
      signed(event('property.updated', { region: 'eu-1' }, { changed: ['name'], previous_version: 1 })),
    ]),
  );
  return list;
}

const VERIFY = 'verifyWebhook(rawBody, headers, secrets) of this kit, or any Standard Webhooks library';
const SPLIT = 'Split webhook-signature on spaces and accept when any v1 entry matches (verifyWebhook does).';

/**
 * What to change for the cases of `rule` that failed (a wrong verdict, never an error), judged
 * together: a receiver that accepts any signature is told it verifies none, not three things.
 * `refusedSecond`: of the repeated webhook-id, whether the first was accepted and the second not.
 */
export function ruleRemedy(rule: ReceiverRule, failed: ReadonlySet<CaseId>, refusedSecond = false): string {
  switch (rule) {
    case 'answer':
      return 'Your receiver answered a valid delivery after the limit: answer 2xx as soon as it is verified and do the work afterwards (on a queue, in the background).';
    case 'raw-body':
      return (
        'Your receiver refused a correctly signed body laid out with other spaces and key order: it verifies JSON it parsed and serialized again. ' +
        'Verify the bytes exactly as received, before any parsing (with Express: express.raw(), not express.json()).'
      );
    case 'signature': {
      const accepted = [
        failed.has('other-secret') && 'a delivery signed with another secret',
        failed.has('no-signature') && 'one without webhook-signature',
      ].filter(Boolean);
      if (accepted.length > 0) {
        return (
          `Your receiver accepted ${accepted.join(' and ')}: it does not check signatures against your secret, so anyone who learns its URL can send it events. ` +
          `Verify every delivery before anything else: ${VERIFY}.`
        );
      }
      return (
        'Your receiver accepted a body changed after signing: its check does not cover the body as received. ' +
        'Compute the HMAC over `<webhook-id>.<webhook-timestamp>.<raw body>` with the bytes received (verifyWebhook does).'
      );
    }
    case 'timestamp': {
      const when = [
        failed.has('six-minutes-ago') && 'six minutes ago',
        failed.has('six-minutes-ahead') && 'six minutes ahead',
      ]
        .filter(Boolean)
        .join(' and one signed ');
      return (
        `Your receiver accepted a delivery signed ${when}: a captured delivery can be replayed at will. ` +
        'Refuse a webhook-timestamp more than 5 minutes from your clock, either way (verifyWebhook does).'
      );
    }
    case 'rotation': {
      const advice: string[] = [];
      if (failed.has('second-matching') && failed.has('first-matching')) {
        advice.push(`Your receiver refused a delivery carrying two signatures, either one matching. ${SPLIT}`);
      } else if (failed.has('second-matching')) {
        advice.push(`Your receiver refused two signatures whose second matches: it reads only the first. ${SPLIT}`);
      } else if (failed.has('first-matching')) {
        advice.push(`Your receiver refused two signatures whose first matches: it reads only the last. ${SPLIT}`);
      }
      if (failed.has('previous-secret')) {
        advice.push(
          'Your receiver refused a delivery signed with the previous secret alone: while a secret rotates, verify with both, the new and the previous (verifyWebhook(body, headers, [secret, previousSecret])).',
        );
      }
      return advice.join(' ');
    }
    case 'duplicates':
      return refusedSecond
        ? 'Your receiver refused the same webhook-id the second time: answer 2xx again and skip the work; the service delivers at least once.'
        : 'Your receiver refused a correctly signed delivery it had not seen (the first of a repeated webhook-id): answer every verified delivery 2xx.';
    case 'unknown-types':
      return 'Your receiver refused an event type it does not know (listing.checked): answer 2xx and ignore it.';
    case 'unknown-fields':
      return 'Your receiver refused an event carrying fields it does not know: accept it and ignore them.';
  }
}
