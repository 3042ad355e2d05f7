import nodemailer from 'nodemailer';
import type { SMTPTransportOptions } from 'nodemailer';
import { describeRetrySpan } from '../domain/webhooks/retry-schedule.ts';
import type { SuspensionReason } from '../domain/webhooks/states.ts';

export interface MailerConfig {
  /** `smtp://user:pass@host:587` (STARTTLS, required) or `smtps://user:pass@host:465` (implicit TLS); unset: send nothing. */
  smtpUrl: string | undefined;
  /** A local relay without TLS: `smtp://` goes on in plain text when the server offers no STARTTLS. */
  allowPlain?: boolean;
  /** Sender, e.g. `Distribution Service <no-reply@distribution.example>`. */
  from: string;
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Resolves `{ sent: false }` only when no SMTP server is configured; rejects when the server refuses the message. */
  send(mail: Mail): Promise<{ sent: boolean; messageId: string | null }>;
  close(): void;
}

const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 20_000;

/**
 * Transport options from the URL, parsed here rather than by nodemailer so that a malformed URL
 * fails without its text (and its password) reaching an error message or a log line.
 */
function transportOptions(smtpUrl: string, allowPlain: boolean): SMTPTransportOptions {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new Error('SMTP URL is not a valid URL (expected smtp://user:pass@host:port or smtps://...)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new Error(`SMTP URL scheme must be smtp: or smtps:, not ${url.protocol}`);
  }
  if (!url.hostname) throw new Error('SMTP URL names no host');
  // smtps: TLS from the first byte. smtp: STARTTLS, and a server that does not offer it (or a
  // man in the middle who strips the offer) is refused, unless a plain local relay is allowed.
  const secure = url.protocol === 'smtps:';
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    requireTLS: !secure && !allowPlain,
    ...(user || pass ? { auth: { user, pass } } : {}),
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    // Neither the SMTP dialogue nor the credentials in it are logged.
    logger: false,
    debug: false,
  };
}

/** nodemailer SMTP transport when smtpUrl is set; otherwise a mailer that sends nothing and returns {sent:false} (so development runs without SMTP; callers log it). */
export function createMailer(config: MailerConfig): Mailer {
  if (!config.smtpUrl) {
    return {
      send: () => Promise.resolve({ sent: false, messageId: null }),
      close: () => {},
    };
  }
  const transport = nodemailer.createTransport(transportOptions(config.smtpUrl, config.allowPlain ?? false));
  return {
    async send(mail) {
      const info = await transport.sendMail({ from: config.from, to: mail.to, subject: mail.subject, text: mail.text });
      // With several recipients nodemailer resolves when at least one was accepted; any refusal is a failure here.
      if (info.rejected.length > 0) {
        throw new Error(`SMTP server refused recipient(s): ${info.rejected.join(', ')}`);
      }
      return { sent: true, messageId: info.messageId || null };
    },
    close() {
      transport.close();
    },
  };
}

/** One line, no control characters: values from the database cannot break the layout or a header. */
function oneLine(value: string): string {
  return value.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim();
}

/** The URL without credentials, query string or fragment, which may carry tokens. */
function displayUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return raw.replace(/[?#].*$/s, '').replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
  }
}

const REASONS: Record<SuspensionReason, string> = {
  failing: `failing: every delivery attempt to this URL has failed for ${describeRetrySpan()}`,
  gone: 'gone: the endpoint answered 410 Gone, asking for deliveries to stop',
};

/** Why the contact gets the message, and who sent it: the end of every notice. */
const SIGNATURE = [
  'You receive this message because you are the technical contact of the channel.',
  'This message was sent automatically; please do not reply.',
  '',
  '-- ',
  'Distribution Service',
  '',
];

/** The suspension notice: plain text, English, names the channel, the endpoint id and URL (url shown without query string), reason (`failing` or `gone`), when, and how to re-enable (POST /webhooks/{id}/enable after fixing; nothing missed is replayed; read GET /events). Never includes secrets. */
export function suspensionMail(input: {
  to: string;
  channel: string;
  endpointId: string;
  url: string;
  reason: SuspensionReason;
  suspendedAt: string /* RFC 3339 */;
}): Mail {
  const channel = oneLine(input.channel);
  const id = oneLine(input.endpointId);
  const url = oneLine(displayUrl(input.url));
  const text = [
    'Hello,',
    '',
    `The webhook endpoint ${id} of channel "${channel}"`,
    'has been suspended: it is now inactive and receives no deliveries.',
    '',
    `  Channel:    ${channel}`,
    `  Endpoint:   ${id}`,
    `  URL:        ${url}`,
    `  Reason:     ${REASONS[input.reason]}`,
    `  Suspended:  ${oneLine(input.suspendedAt)}`,
    '',
    'To resume deliveries:',
    '',
    '  1. Fix the endpoint so that it accepts deliveries again (answers 2xx).',
    `  2. Re-enable it: POST /webhooks/${id}/enable with an API key of the channel.`,
    '',
    'Events that occurred while the endpoint was suspended are not replayed',
    'once it is enabled again. Read what you missed from GET /events.',
    '',
    ...SIGNATURE,
  ].join('\n');
  return {
    to: input.to,
    subject: `Webhook endpoint suspended: ${channel} (${id})`,
    text,
  };
}

/**
 * The notice of a leaked key: plain text, English; names the channel, environment, key id and
 * its last four characters, when it was revoked, and what to do. Never carries the key.
 */
export function leakedKeyMail(input: {
  to: string;
  channel: string;
  environment: string;
  keyId: string;
  last4: string;
  revokedAt: string; /* RFC 3339 */
}): Mail {
  const channel = oneLine(input.channel);
  const id = oneLine(input.keyId);
  const text = [
    'Hello,',
    '',
    `An API key of channel "${channel}" was found where the public can read it`,
    '(for example a public code repository). It has been revoked: every request',
    'made with it is now refused with api_key_revoked.',
    '',
    `  Channel:      ${channel}`,
    `  Environment:  ${oneLine(input.environment)}`,
    `  Key id:       ${id}`,
    `  Key ends in:  ...${oneLine(input.last4)}`,
    `  Revoked:      ${oneLine(input.revokedAt)}`,
    '',
    'What to do:',
    '',
    "  1. Put the channel's other key in service, or ask us for a new key.",
    '  2. Remove the revoked key from wherever it was published, and treat',
    '     anything it could read as seen by others.',
    '  3. GET /channel shows which key a request used (key.last4).',
    '',
    ...SIGNATURE,
  ].join('\n');
  return { to: input.to, subject: `API key revoked after a leak: ${channel} (...${oneLine(input.last4)})`, text };
}
