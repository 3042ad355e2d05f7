/**
 * Confinement for runs that let generated input choose where the service connects (the fuzz run):
 * every TCP connection this process opens must end on a loopback address, and every name the
 * webhook sender resolves is asked of a resolver on loopback that refuses every query.
 */
import dgram from 'node:dgram';
import dns, { type LookupAddress } from 'node:dns';
import net from 'node:net';

export function isLoopback(address: string): boolean {
  const bare = address.startsWith('::ffff:') ? address.slice(7) : address;
  return bare === '::1' || (net.isIPv4(bare) && bare.startsWith('127.'));
}

type ConnectOptions = net.NetConnectOpts & { host?: string; lookup?: net.LookupFunction };

function refusal(target: string): Error {
  return Object.assign(new Error(`loopback-only run: connection to ${target} refused`), { code: 'ERR_LOOPBACK_ONLY' });
}

/** A lookup that answers only loopback addresses; a name with any other answer fails. */
function loopbackLookup(original: net.LookupFunction): net.LookupFunction {
  return (hostname, options, callback) => {
    original(
      hostname,
      options,
      (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
        if (error) return callback(error, address, family);
        const answers = Array.isArray(address) ? address.map((a) => a.address) : [address];
        if (!answers.every(isLoopback)) return callback(refusal(`${hostname} (${answers.join(', ')})`), '', 4);
        return (callback as (e: null, a: string | LookupAddress[], f?: number) => void)(null, address, family);
      },
    );
  };
}

/**
 * Patches `net.Socket.prototype.connect`, through which every TCP and TLS client of Node passes:
 * an address literal must be loopback, and a name's answers must all be loopback, or the socket
 * fails with ERR_LOOPBACK_ONLY before any packet leaves. Unix sockets pass.
 */
export function confineToLoopback(): void {
  const connect = Object.getOwnPropertyDescriptor(net.Socket.prototype, 'connect')!.value as (
    this: net.Socket,
    ...args: unknown[]
  ) => net.Socket;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]): net.Socket {
    // The forms: (options[, cb]), ([options, cb]) from internal callers, (port[, host][, cb]), (path[, cb]).
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    let options: ConnectOptions;
    if (typeof first === 'object' && first !== null) options = first as ConnectOptions;
    else if (typeof first === 'string' && !/^\d+$/.test(first)) return connect.apply(this, args);
    else options = { port: Number(first), ...(typeof args[1] === 'string' ? { host: args[1] } : {}) };
    if ('path' in options && options.path) return connect.apply(this, args);
    const host = options.host ?? 'localhost';
    if (net.isIP(host) !== 0) {
      if (!isLoopback(host)) {
        process.nextTick(() => this.destroy(refusal(host)));
        return this;
      }
      return connect.apply(this, args);
    }
    const guarded = { ...options, lookup: loopbackLookup(options.lookup ?? dns.lookup) };
    if (Array.isArray(args[0])) {
      // Node's own callers pass normalised arguments, marked by a symbol on the array: keep it.
      const normalised = args[0] as unknown[] & Record<symbol, unknown>;
      const copy = Object.assign(
        [guarded, ...normalised.slice(1)],
        Object.fromEntries(Object.getOwnPropertySymbols(normalised).map((key) => [key, normalised[key]])),
      );
      return connect.call(this, copy, ...args.slice(1));
    }
    return connect.call(
      this,
      guarded,
      ...(typeof args[1] === 'function' ? [args[1]] : typeof args[2] === 'function' ? [args[2]] : []),
    );
  };
}

/**
 * A name server on 127.0.0.1 that answers every query REFUSED at once: the webhook sender's
 * resolver pointed here resolves no name, quickly, and asks nothing of any other server.
 */
export async function startRefusingResolver(): Promise<{ server: string; close: () => Promise<void> }> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (query, peer) => {
    if (query.length < 12) return;
    const answer = Buffer.from(query);
    // QR=1, keep opcode and RD; RA=1, RCODE=5 (REFUSED); no answer, authority or additional records.
    answer[2] = 0x80 | (query[2]! & 0x79);
    answer[3] = 0x80 | 5;
    answer.writeUInt16BE(0, 6);
    answer.writeUInt16BE(0, 8);
    answer.writeUInt16BE(0, 10);
    socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return { server: `127.0.0.1:${port}`, close: () => new Promise((resolve) => socket.close(() => resolve())) };
}
