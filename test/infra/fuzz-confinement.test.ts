import { execFile } from 'node:child_process';
import { promises as dns } from 'node:dns';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { postWebhook } from '../../infra/webhook-http.ts';
import { startRefusingResolver } from '../../scripts/loopback-only.ts';

const run = promisify(execFile);
const module = path.resolve(import.meta.dirname, '../../scripts/loopback-only.ts');

/**
 * Runs `body` in a child Node process whose sockets are confined as in the fuzz run (the patch is
 * process-wide, so it never touches the test worker), and returns what it printed.
 */
async function confined(body: string): Promise<string> {
  const script = `
    import net from 'node:net';
    import tls from 'node:tls';
    import { confineToLoopback } from ${JSON.stringify(module)};
    confineToLoopback();
    const outcome = (socket) => new Promise((resolve) => {
      socket.once('connect', () => { socket.destroy(); resolve('connected'); });
      socket.once('error', (error) => resolve(error.code ?? error.message));
    });
    ${body}
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { timeout: 30_000 });
  return stdout.trim();
}

describe('the fuzz run is confined to loopback', () => {
  it('refuses a public address literal before connecting, over TCP and TLS', async () => {
    const out = await confined(`
      console.log(await outcome(net.connect({ host: '192.0.2.10', port: 443 })));
      console.log(await outcome(tls.connect({ host: '2001:db8::1', port: 443, servername: 'x.example' })));
      console.log(await outcome(net.connect(443, '198.51.100.7')));
    `);
    expect(out.split('\n')).toEqual(['ERR_LOOPBACK_ONLY', 'ERR_LOOPBACK_ONLY', 'ERR_LOOPBACK_ONLY']);
  });

  it('refuses a name whose answers are not all loopback, and lets loopback through', async () => {
    const out = await confined(`
      const server = net.createServer((s) => s.destroy());
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address();
      const publicAnswer = (host, options, cb) => options.all ? cb(null, [{ address: '127.0.0.1', family: 4 }, { address: '203.0.113.9', family: 4 }]) : cb(null, '203.0.113.9', 4);
      const loopbackAnswer = (host, options, cb) => options.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4);
      console.log(await outcome(net.connect({ host: 'partner.example.com', port, lookup: publicAnswer })));
      console.log(await outcome(net.connect({ host: 'partner.example.com', port, lookup: loopbackAnswer })));
      console.log(await outcome(net.connect({ host: '127.0.0.1', port })));
      server.close();
    `);
    expect(out.split('\n')).toEqual(['ERR_LOOPBACK_ONLY', 'connected', 'connected']);
  });

  it('resolves no name through the refusing resolver, so a webhook to a public name is never sent', async () => {
    const resolver = await startRefusingResolver();
    try {
      const asking = new dns.Resolver({ timeout: 1000, tries: 1 });
      asking.setServers([resolver.server]);
      await expect(asking.resolve4('partner.example.com')).rejects.toMatchObject({ code: 'EREFUSED' });
      const sent = await postWebhook('https://partner.example.com/hook', {}, '{}', {
        allowLocal: false,
        dnsServers: [resolver.server],
        timeoutMs: 5000,
      });
      expect(sent.statusCode).toBeNull();
      expect(sent.error).toBe('dns_failure');
    } finally {
      await resolver.close();
    }
  });
});
