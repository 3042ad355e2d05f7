import { readFileSync } from 'node:fs';
import { startChannelApp } from './app.ts';

/**
 * The reference channel app as a process:
 *   NODE_EXTRA_CA_CERTS=.data/tls/localhost.crt DISTRIBUTION_API_KEY=svc_test_... CHANNEL_NAME=demo-travel \
 *   WEBHOOK_SECRET=whsec_... TLS_CERT_FILE=.data/tls/localhost.crt TLS_KEY_FILE=.data/tls/localhost.key \
 *   node examples/channel-app/server.ts
 * Importable too: `startChannelApp(options)` from here or from app.ts.
 */
export { startChannelApp, type ChannelApp, type ChannelAppOptions } from './app.ts';

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is required (see examples/channel-app/README.md)`);
    process.exit(2);
  }
  return value;
}

if (import.meta.main) {
  const env = process.env;
  const file = (name: string) => (env[name] ? readFileSync(env[name], 'utf8') : undefined);
  const cert = file('TLS_CERT_FILE');
  const key = file('TLS_KEY_FILE');
  const app = await startChannelApp({
    apiBaseUrl: env.DISTRIBUTION_API_URL ?? 'https://localhost:8443/api/v1/distribution',
    apiKey: required('DISTRIBUTION_API_KEY'),
    channel: required('CHANNEL_NAME'),
    ...(env.DISTRIBUTION_ISSUER ? { issuer: env.DISTRIBUTION_ISSUER } : {}),
    ...(env.WEBHOOK_SECRET ? { webhookSecrets: env.WEBHOOK_SECRET.split(',').map((secret) => secret.trim()) } : {}),
    ...(cert && key ? { tls: { cert, key } } : {}),
    host: env.HOST ?? '127.0.0.1',
    port: Number(env.PORT ?? 3000),
    ...(env.CHANNEL_ACCOUNT ? { account: env.CHANNEL_ACCOUNT } : {}),
  });
  console.log(`reference channel app for ${required('CHANNEL_NAME')} at ${app.url}`);
  if (env.WEBHOOK_SECRET) console.log(`receiving webhooks at ${app.url}/webhooks`);
  if (app.redirectUrl.startsWith('https:'))
    console.log(
      `set its redirect URL: npm run admin -- channel update ${required('CHANNEL_NAME')} --redirect-url ${app.redirectUrl}`,
    );
  else
    console.log(
      'serving plain HTTP: a redirect URL is an https:// URL, so set TLS_CERT_FILE and TLS_KEY_FILE to receive hand-offs',
    );
  const stop = () => void app.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
