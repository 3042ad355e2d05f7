import { readFileSync } from 'node:fs';
import { describeFailure, namingFailures } from './api-fetch.ts';
import { startChannelApp } from './app.ts';
import { createChannelClient, isProblem } from './kit.ts';

/**
 * The reference channel app as a process:
 *   NODE_EXTRA_CA_CERTS=.data/tls/localhost.crt DISTRIBUTION_API_URL=https://localhost:8443/api/v1/distribution \
 *   DISTRIBUTION_API_KEY=svc_test_... CHANNEL_NAME=demo-travel WEBHOOK_SECRET=whsec_... \
 *   node examples/channel-app/server.ts
 * It reads variables of its own (README.md), never the service's `PORT` and `HOST`: a shell that
 * started the service may have them exported, and they name the service's listener, not this one.
 * Importable too: `startChannelApp(options)` from here or from app.ts.
 */
export { startChannelApp, type ChannelApp, type ChannelAppOptions } from './app.ts';

export const DEFAULT_API_URL = 'https://localhost:8443/api/v1/distribution';
const DEFAULT_PORT = 3000;
const README = 'examples/channel-app/README.md';

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is required (see ${README})`);
    process.exit(2);
  }
  return value;
}

/** A whole number from `name`, within bounds, or `fallback` when unset; anything else stops the app. */
function wholeNumber(name: string, least: number, most: number): number | undefined {
  const value = process.env[name];
  if (!value) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < least || Number(value) > most) {
    console.error(`${name} ${value} is not a whole number from ${least} to ${most} (see ${README})`);
    process.exit(2);
  }
  return Number(value);
}

function portOf(value: string | undefined): number {
  if (!value) return DEFAULT_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`CHANNEL_APP_PORT ${value} is not a port (0 to 65535; 0 lets the system pick one)`);
    process.exit(2);
  }
  return port;
}

/**
 * One call to `GET /channel` (no scope needed) right after start: says at once whether the API is
 * reached, whose key this is and whether the channel's redirect URL is this app's, instead of on
 * the first event or hand-off. Never fatal: the service may start after the app.
 */
async function probe(input: { apiBaseUrl: string; apiKey: string; channel: string; redirectUrl: string }) {
  const client = createChannelClient({
    baseUrl: input.apiBaseUrl,
    key: input.apiKey,
    fetch: namingFailures((request, init) => globalThis.fetch(request, init)),
    retries: false,
  });
  try {
    const { data } = await client.GET('/channel');
    if (!data) return;
    console.log(`API reached: channel ${data.channel}, key …${data.key.last4}`);
    if (data.channel !== input.channel)
      console.error(
        `the key is channel ${data.channel}'s, but CHANNEL_NAME is ${input.channel}: owner-connect tokens for ${data.channel} would be refused (aud)`,
      );
    const registered = data.owner_connect.redirect_url;
    if (!input.redirectUrl.startsWith('https:'))
      console.log(
        'owner connect: off (plain HTTP, and a redirect URL is https://); TLS_CERT_FILE and TLS_KEY_FILE serve HTTPS',
      );
    else if (registered !== input.redirectUrl)
      console.log(
        `the channel's redirect URL is ${registered ?? 'not set'}; to send hand-offs here: npm run admin -- channel update ${data.channel} --redirect-url ${input.redirectUrl}`,
      );
  } catch (error) {
    if (isProblem(error)) console.error(`API refused GET /channel: ${error.status} ${error.code ?? ''}`.trimEnd());
    else console.error(`API not reached: ${describeFailure(error)}`);
  }
}

if (import.meta.main) {
  const env = process.env;
  const file = (name: string) => (env[name] ? readFileSync(env[name], 'utf8') : undefined);
  const cert = file('TLS_CERT_FILE');
  const key = file('TLS_KEY_FILE');
  const channel = required('CHANNEL_NAME');
  const apiKey = required('DISTRIBUTION_API_KEY');
  const apiBaseUrl = env.DISTRIBUTION_API_URL || DEFAULT_API_URL;
  const host = env.CHANNEL_APP_HOST || '127.0.0.1';
  const port = portOf(env.CHANNEL_APP_PORT);
  const syncSeconds = wholeNumber('SYNC_INTERVAL_SECONDS', 0, 86_400);
  const syncPageSize = wholeNumber('SYNC_PAGE_SIZE', 1, 500);
  let app;
  try {
    app = await startChannelApp({
      apiBaseUrl,
      apiKey,
      channel,
      ...(env.DISTRIBUTION_ISSUER ? { issuer: env.DISTRIBUTION_ISSUER } : {}),
      ...(env.WEBHOOK_SECRET ? { webhookSecrets: env.WEBHOOK_SECRET.split(',').map((secret) => secret.trim()) } : {}),
      ...(cert && key ? { tls: { cert, key } } : {}),
      ...(syncSeconds === undefined ? {} : { syncIntervalMs: syncSeconds * 1000 }),
      ...(syncPageSize === undefined ? {} : { syncPageSize }),
      host,
      port,
      ...(env.CHANNEL_ACCOUNT ? { account: env.CHANNEL_ACCOUNT } : {}),
      ...(env.CHANNEL_ACCOUNT_TIME_ZONE ? { timeZone: env.CHANNEL_ACCOUNT_TIME_ZONE } : {}),
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES')
      console.error(`cannot listen on ${host}:${port} (${code}): set CHANNEL_APP_PORT or CHANNEL_APP_HOST`);
    else console.error(`not started: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  console.log(`reference channel app for ${channel}, listening on ${host}:${app.listening.port}: ${app.url}`);
  console.log(
    `distribution API: ${apiBaseUrl}${env.DISTRIBUTION_API_URL ? '' : ' (the default; DISTRIBUTION_API_URL names another)'}`,
  );
  if (env.WEBHOOK_SECRET) console.log(`receiving webhooks at ${app.url}/webhooks`);
  const stop = () => void app.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await probe({ apiBaseUrl, apiKey, channel, redirectUrl: app.redirectUrl });
}
