import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { freeLoopbackPort } from '../../infra/ports.ts';

const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

const listen = (port: number) =>
  new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve(server));
  });

describe('a port handed to a child (freeLoopbackPort)', () => {
  test('comes from below the ephemeral range, where no outgoing connection or listen(0) lands, and can be bound', async () => {
    for (let round = 0; round < 20; round += 1) {
      const port = await freeLoopbackPort();
      expect(port).toBeGreaterThanOrEqual(20000);
      expect(port).toBeLessThan(ephemeralStart);
      const server = await listen(port);
      expect((server.address() as AddressInfo).port).toBe(port);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('is not one another process holds', async () => {
    const held = await Promise.all(Array.from({ length: 5 }, async () => listen(await freeLoopbackPort())));
    const heldPorts = new Set(held.map((server) => (server.address() as AddressInfo).port));
    try {
      for (let round = 0; round < 50; round += 1) expect(heldPorts.has(await freeLoopbackPort())).toBe(false);
    } finally {
      await Promise.all(held.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    }
  });
});
