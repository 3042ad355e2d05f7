/**
 * `node bench/otlp-sink.ts [port]`: an OTLP/HTTP collector that accepts every export and keeps
 * nothing, for measuring what tracing costs the service without a collector's own work on the
 * same machine. Prints `listening <url>`, then on SIGINT/SIGTERM one JSON line: requests and bytes
 * received per path and content type.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const received = new Map<string, { requests: number; bytes: number }>();
const server = http.createServer((req, res) => {
  const key = `${req.method} ${req.url} ${req.headers['content-type'] ?? ''}`;
  const entry = received.get(key) ?? { requests: 0, bytes: 0 };
  received.set(key, entry);
  entry.requests += 1;
  req.on('data', (chunk: Buffer) => (entry.bytes += chunk.length));
  req.on('end', () => {
    const json = (req.headers['content-type'] ?? '').startsWith('application/json');
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
const stop = () => {
  process.stdout.write(`${JSON.stringify(Object.fromEntries(received))}\n`);
  server.close();
  server.closeAllConnections();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
