import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { createMailer, suspensionMail, type Mailer } from '../../infra/mailer.ts';
import { describeRetrySpan } from '../../domain/webhooks/retry-schedule.ts';

// A real SMTP server on loopback receives what the mailer sends: plain SMTP, no TLS, no AUTH
// (a local relay, allowed explicitly).

interface Received {
  mailFrom: string | null;
  rcptTo: string[];
  raw: string;
}

const FROM = 'Distribution Service <no-reply@distribution.example>';
const REFUSED = 'nobody@partner.example';

let server: SMTPServer;
let port: number;
let received: Received[] = [];
let mailer: Mailer;

beforeAll(async () => {
  server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address === REFUSED) {
        callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.server.address() as AddressInfo).port;
  mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, allowPlain: true });
});

afterAll(async () => {
  mailer?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
});

/** RFC 2047 encoded words (=?UTF-8?Q?...?= / =?UTF-8?B?...?=), which nodemailer uses for long or non-ASCII headers. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_m, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ).toString('utf8'),
    );
}

/** Headers (unfolded, lower-cased names) and body (quoted-printable decoded when so encoded) of a raw message. */
function parse(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()));
  }
  let body = raw.slice(split + 4);
  if (/quoted-printable/i.test(headers.get('content-transfer-encoding') ?? '')) {
    body = Buffer.from(
      body
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  }
  return { headers, body: body.replace(/\r\n/g, '\n') };
}

const notice = (overrides: Partial<Parameters<typeof suspensionMail>[0]> = {}) =>
  suspensionMail({
    to: 'tech@partner.example',
    channel: 'Partner Travel',
    endpointId: 'wh_01JDX4Q0S1AB2CD3EF4GH5JK6M',
    url: 'https://partner.example/hook?token=abc',
    reason: 'failing',
    suspendedAt: '2026-11-25T10:00:00Z',
    ...overrides,
  });

test('the suspension notice reaches the technical contact over SMTP', async () => {
  const mail = notice();
  const result = await mailer.send(mail);
  expect(result.sent).toBe(true);
  expect(result.messageId).toMatch(/^<.+@.+>$/);

  expect(received).toHaveLength(1);
  const [message] = received;
  expect(message!.rcptTo).toEqual(['tech@partner.example']);
  expect(message!.mailFrom).toBe('no-reply@distribution.example');

  const { headers, body } = parse(message!.raw);
  expect(headers.get('from')).toBe(FROM);
  expect(headers.get('to')).toBe('tech@partner.example');
  expect(headers.get('subject')).toBe(mail.subject);
  expect(headers.get('message-id')).toBe(result.messageId);
  expect(headers.get('content-type')).toMatch(/^text\/plain/);
  expect(body.trimEnd()).toBe(mail.text.trimEnd());

  for (const expected of [
    'Partner Travel',
    'wh_01JDX4Q0S1AB2CD3EF4GH5JK6M',
    'https://partner.example/hook',
    'failing',
    describeRetrySpan(),
    '2026-11-25T10:00:00Z',
    'POST /webhooks/wh_01JDX4Q0S1AB2CD3EF4GH5JK6M/enable',
    'not replayed',
    'GET /events',
  ]) {
    expect(body).toContain(expected);
  }
  expect(message!.raw).not.toContain('token=abc');
  expect(message!.raw).not.toContain('hook?');
  expect(message!.raw).not.toMatch(/whsec_/i);
});

test('the notice: subject, reasons, URL without query, credentials or fragment', () => {
  const failing = notice();
  expect(failing.to).toBe('tech@partner.example');
  expect(failing.subject).toContain('suspended');
  expect(failing.subject).toContain('Partner Travel');
  expect(failing.text).toContain('https://partner.example/hook\n');
  expect(failing.text).not.toContain('token');

  const gone = notice({ reason: 'gone', url: 'https://user:pw@partner.example/a/b?x=1#frag' });
  expect(gone.text).toContain('410 Gone');
  expect(gone.text).toContain('https://partner.example/a/b\n');
  expect(gone.text).not.toMatch(/pw|x=1|frag/);

  // A name from the database cannot add lines to the subject or forge headers.
  const hostile = notice({ channel: 'Evil\r\nBcc: victim@example.com' });
  expect(hostile.subject).not.toMatch(/[\r\n]/);
  expect(hostile.text).not.toMatch(/^Bcc:/m);
  for (const mail of [failing, gone, hostile]) expect(`${mail.subject}\n${mail.text}`).not.toMatch(/whsec_/i);
});

test('a hostile channel name forges no header on the wire', async () => {
  await mailer.send(notice({ channel: 'Evil\r\nBcc: victim@example.com' }));
  expect(received).toHaveLength(1);
  expect(received[0]!.rcptTo).toEqual(['tech@partner.example']);
  const { headers } = parse(received[0]!.raw);
  expect(headers.has('bcc')).toBe(false);
  expect(headers.get('subject')).toContain('Evil Bcc: victim@example.com');
});

test('without an SMTP URL nothing is sent', async () => {
  const disabled = createMailer({ smtpUrl: undefined, from: FROM });
  expect(await disabled.send(notice())).toEqual({ sent: false, messageId: null });
  disabled.close();
  await expect(createMailer({ smtpUrl: '', from: FROM }).send(notice())).resolves.toEqual({
    sent: false,
    messageId: null,
  });
  expect(received).toHaveLength(0);
});

test('a refused recipient rejects, so the calling activity retries', async () => {
  await expect(mailer.send(notice({ to: REFUSED }))).rejects.toThrow(/550|No such user|recipients/i);
  expect(received).toHaveLength(0);
});

test('smtp:// without STARTTLS on offer (a stripped upgrade) is refused unless plain is allowed', async () => {
  const strict = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM });
  try {
    await expect(strict.send(notice())).rejects.toThrow();
    expect(received).toHaveLength(0);
  } finally {
    strict.close();
  }
});

test('an unreachable server rejects', async () => {
  const closed = new SMTPServer({ disabledCommands: ['STARTTLS'], authOptional: true, logger: false });
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
  const deadPort = (closed.server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const unreachable = createMailer({ smtpUrl: `smtp://127.0.0.1:${deadPort}`, from: FROM });
  try {
    await expect(unreachable.send(notice())).rejects.toThrow();
  } finally {
    unreachable.close();
  }
});

test.each(['not a url hunter2', 'http://user:hunter2@mail.example', 'smtp://user:hunter2@'])(
  'a bad SMTP URL (%s) fails at creation without echoing its password',
  (smtpUrl) => {
    let error: unknown;
    try {
      createMailer({ smtpUrl, from: FROM });
    } catch (caught) {
      error = caught;
    }
    expect(error, 'createMailer threw').toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^SMTP URL /);
    expect(String(error)).not.toContain('hunter2');
    expect((error as Error).stack).not.toContain('hunter2');
  },
);
