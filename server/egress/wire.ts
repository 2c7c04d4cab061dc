// The proxy's wire: dialling a checked address, the headers passed on, the raw refusals and the
// two-way pipe of a tunnel. No policy here: what may be dialled is decided in ./proxy.ts (policy.ts).
import net from 'node:net';
import type { Duplex } from 'node:stream';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Never called for IP literals; present so that no code path can resolve a name at dial time. */
const refuseLookup = ((_h: string, _o: unknown, cb: (e: Error) => void) =>
  cb(new Error('egress proxy: names are never resolved at dial time'))) as unknown as net.LookupFunction;

/** Connects to the first reachable address of a checked answer, in order. */
export function dial(addresses: string[], port: number, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    let i = 0;
    let lastErr: Error = new Error('no address');
    const next = () => {
      const ip = addresses[i++];
      if (ip === undefined) return reject(lastErr);
      if (net.isIP(ip) === 0) return reject(new Error('refusing to dial a name'));
      const s = net.connect({ host: ip, port, lookup: refuseLookup });
      const t = setTimeout(() => s.destroy(new Error(`connect to ${ip} timed out`)), timeoutMs);
      s.once('connect', () => {
        clearTimeout(t);
        s.removeAllListeners('error');
        resolve(s);
      });
      s.once('error', (e) => {
        clearTimeout(t);
        lastErr = e;
        next();
      });
    };
    next();
  });
}

export function filterHeaders(raw: string[], keepUpgrade: boolean): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') raw[i + 1]!.split(',').forEach((t) => named.add(t.trim().toLowerCase()));
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i]!.toLowerCase();
    if (k === 'host') continue;
    if (keepUpgrade && (k === 'upgrade' || k === 'connection')) {
      out.push(raw[i]!, raw[i + 1]!);
      continue;
    }
    if (HOP_BY_HOP.has(k) || named.has(k)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

export function writeRaw(sock: Duplex, status: string): void {
  if (!sock.writable) return void sock.destroy();
  sock.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\nX-Egress-Blocked: 1\r\n\r\n`);
}

export function pipeBoth(a: Duplex, b: net.Socket, idleMs: number): void {
  const done = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', done).on('close', done);
  b.on('error', done).on('close', done);
  b.setTimeout(idleMs, done);
  a.pipe(b).pipe(a);
}
