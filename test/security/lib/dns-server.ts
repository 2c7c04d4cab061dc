// A tiny authoritative DNS server over UDP for tests (A and AAAA only), listening on loopback.
// It lets tests play every resolver role of the threat model: names resolving to private or mixed
// answers, wildcard services that embed an IP, rebinding (answers that change per query), NXDOMAIN,
// SERVFAIL and timeouts. Never listens beyond loopback.
import dgram from 'node:dgram';
import { parseIp } from '../../../server/egress/ip.ts';

export type DnsAnswer = { addresses: string[]; ttl?: number } | 'nxdomain' | 'servfail' | 'drop';
export type DnsHandler = (name: string, type: 'A' | 'AAAA', queryNo: number) => DnsAnswer;

export interface TestDnsServer {
  /** "127.0.0.1:PORT", for dns Resolver.setServers / EgressOptions.dnsServers. */
  readonly server: string;
  readonly port: number;
  /** Queries seen, in order ("A example.com"). */
  readonly log: string[];
  close(): Promise<void>;
}

function readName(msg: Buffer, off: number): { name: string; end: number } {
  const labels: string[] = [];
  for (;;) {
    const len = msg[off]!;
    if (len === 0) return { name: labels.join('.').toLowerCase(), end: off + 1 };
    if (len >= 0xc0) throw new Error('compressed question names are not supported');
    labels.push(msg.subarray(off + 1, off + 1 + len).toString('latin1'));
    off += 1 + len;
  }
}

export async function startDnsServer(handler: DnsHandler, host = '127.0.0.1', port = 0): Promise<TestDnsServer> {
  const sock = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
  const log: string[] = [];
  const counts = new Map<string, number>();
  sock.on('message', (msg, rinfo) => {
    try {
      const { name, end } = readName(msg, 12);
      const qtype = msg.readUInt16BE(end);
      const question = msg.subarray(12, end + 4);
      const type = qtype === 1 ? 'A' : qtype === 28 ? 'AAAA' : null;
      log.push(`${type ?? qtype} ${name}`);
      const key = `${type} ${name}`;
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      const ans: DnsAnswer = type ? handler(name, type, n) : { addresses: [] };
      if (ans === 'drop') return;
      const rcode = ans === 'nxdomain' ? 3 : ans === 'servfail' ? 2 : 0;
      const records = typeof ans === 'object' ? ans.addresses.map((a) => parseIp(a)!).filter((b) => b && b.length === (type === 'A' ? 4 : 16)) : [];
      const header = Buffer.alloc(12);
      header.writeUInt16BE(msg.readUInt16BE(0), 0);
      header.writeUInt16BE(0x8400 | (msg.readUInt16BE(2) & 0x0100) | 0x0080 | rcode, 2); // QR AA (RD) RA
      header.writeUInt16BE(1, 4);
      header.writeUInt16BE(records.length, 6);
      const rrs = records.map((b) => {
        const rr = Buffer.alloc(12 + b.length);
        rr.writeUInt16BE(0xc00c, 0);
        rr.writeUInt16BE(qtype, 2);
        rr.writeUInt16BE(1, 4);
        rr.writeUInt32BE(typeof ans === 'object' ? (ans.ttl ?? 60) : 0, 6);
        rr.writeUInt16BE(b.length, 10);
        Buffer.from(b).copy(rr, 12);
        return rr;
      });
      sock.send(Buffer.concat([header, question, ...rrs]), rinfo.port, rinfo.address);
    } catch {
      /* malformed query: ignore */
    }
  });
  await new Promise<void>((resolve, reject) => {
    sock.once('error', reject);
    sock.bind(port, host, () => resolve());
  });
  const p = sock.address().port;
  return {
    server: host.includes(':') ? `[${host}]:${p}` : `${host}:${p}`,
    port: p,
    log,
    close: () => new Promise((resolve) => sock.close(() => resolve())),
  };
}
