// The filtering forward proxy the browser is forced through (DESIGN §4, threat model "After the first
// hop"). It is the guarantee; the pre-navigation check is only the friendly error.
// - CONNECT host:port (https, wss, and ws: Chromium tunnels every WebSocket through CONNECT),
//   absolute-URI HTTP (`GET http://host/...`), and absolute-URI Upgrade requests.
// - Each target goes through the policy (policy.ts): resolved here, every answer classified, and
//   only an address from that checked answer is dialled. The socket layer is never handed a name,
//   so there is no second lookup to rebind (net.connect gets an IP and a lookup that refuses).
//   Plain http reuses an upstream connection only for a request whose own verdict has exactly the
//   addresses it was dialled from, and that came on the same connection of the browser (upstream-pool.ts).
// - Refusal: CONNECT gets "403" (Chromium: ERR_TUNNEL_CONNECTION_FAILED, a failed load); HTTP gets
//   an empty 403 with `x-egress-blocked: 1` (an image/script/iframe load fails or renders empty).
// - Logs carry kind, origin (host:port) and reason: never a path, query, header or body.
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { parseAuthority, parseTargetUrl, MalformedTarget, type Target } from './host.ts';
import { dial, filterHeaders, pipeBoth, writeRaw } from './wire.ts';
import { REPLAYABLE, upstreamPool, type DialError } from './upstream-pool.ts';
import type { Policy, Verdict } from './policy.ts';

export type ProxyEventKind = 'connect' | 'http' | 'upgrade';
export interface ProxyEvent {
  kind: ProxyEventKind;
  /** host:port as requested (canonical), or the raw authority when it did not parse. */
  origin: string;
  decision: 'allowed' | 'refused' | 'failed';
  reason?: string;
  at: number;
}
export interface ProxyStats {
  allowed: number;
  refused: number;
  failed: number;
  /** The most recent events, oldest first (bounded). */
  recent: ProxyEvent[];
}
export type EgressLog = (level: 'info' | 'warn', msg: string, fields: Record<string, unknown>) => void;

export interface ProxyOptions {
  policy: Policy;
  log?: EgressLog;
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
}

export interface EgressProxy {
  readonly port: number;
  stats(): ProxyStats;
  close(): Promise<void>;
}

/** Set on the empty 403 the proxy answers for a refused absolute-URI request; server/toolkit/hops.ts reads it. */
export const PROXY_REFUSAL_HEADER = 'x-egress-blocked';

const RECENT_MAX = 500;

export async function startProxy(opts: ProxyOptions): Promise<EgressProxy> {
  const connectTimeout = opts.connectTimeoutMs ?? 10_000;
  const idle = opts.idleTimeoutMs ?? 60_000;
  const stats: ProxyStats = { allowed: 0, refused: 0, failed: 0, recent: [] };

  const record = (kind: ProxyEventKind, origin: string, decision: ProxyEvent['decision'], reason?: string) => {
    const e: ProxyEvent = { kind, origin, decision, reason, at: Date.now() };
    stats[decision]++;
    stats.recent.push(e);
    if (stats.recent.length > RECENT_MAX) stats.recent.shift();
    if (decision !== 'allowed') opts.log?.(decision === 'refused' ? 'warn' : 'info', `egress ${decision}`, { kind, origin, reason });
  };

  /** Policy decision for a parsed target; records refusals. Returns the verdict when allowed. */
  const decide = async (kind: ProxyEventKind, target: Target): Promise<Extract<Verdict, { ok: true }> | { refused: 403 | 502 }> => {
    const v = await opts.policy.check(target);
    if (v.ok) return v;
    record(kind, target.origin, v.kind === 'blocked' ? 'refused' : 'failed', v.reason);
    return { refused: v.kind === 'blocked' ? 403 : 502 };
  };
  const STATUS_LINE = { 400: '400 Bad Request', 403: '403 Forbidden', 502: '502 Bad Gateway' } as const;

  /**
   * For a tunnel (CONNECT, Upgrade): the policy's verdict, then a connection to the very address it
   * checked. On a refusal or a failed dial the client has been answered and undefined is returned.
   */
  const upstream = async (kind: 'connect' | 'upgrade', target: Target, client: Duplex): Promise<net.Socket | undefined> => {
    const d = await decide(kind, target);
    if ('refused' in d) return void writeRaw(client, STATUS_LINE[d.refused]);
    try {
      return await dial(d.dial, target.port, connectTimeout);
    } catch (e) {
      record(kind, target.origin, 'failed', `connect failed: ${(e as Error).message}`);
      return void writeRaw(client, STATUS_LINE[502]);
    }
  };

  /** A bug in a handler must cost one connection, never the process (unhandled rejections exit). */
  const fault = (e: unknown, conn: http.ServerResponse | Duplex) => {
    opts.log?.('warn', 'egress proxy fault', { error: e instanceof Error ? e.message : String(e) });
    conn.destroy();
  };

  // plain http goes upstream on kept-alive connections, keyed by the checked answer and the
  // browser's connection it came on (upstream-pool.ts)
  const pool = upstreamPool(connectTimeout);
  const server = http.createServer();
  const sockets = new Set<Duplex>();
  /** Each connection of the browser to the proxy, numbered: upstream connections are never shared across them. */
  const clientIds = new WeakMap<Duplex, number>();
  let clients = 0;
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    clientIds.set(s, ++clients);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_e, s) => s.destroy());

  // Absolute-URI HTTP (plain http: subresources, navigations, redirects).
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => void onRequest(req, res).catch((e) => fault(e, res)));
  async function onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const reply = (status: number) => res.writeHead(status, { 'content-length': '0', [PROXY_REFUSAL_HEADER]: '1', connection: 'close' }).end();
    const refuse = (status: number, origin: string, reason: string, decision: 'refused' | 'failed' = 'refused') => {
      record('http', origin, decision, reason);
      reply(status);
    };
    let target: Target;
    try {
      const parsed = parseTargetUrl(req.url ?? '');
      if (!(req.url ?? '').toLowerCase().startsWith('http:')) throw new MalformedTarget('only http: is proxied without CONNECT');
      target = parsed.target;
    } catch (e) {
      return refuse(
        400,
        String(req.url ?? '')
          .slice(0, 100)
          .replace(/[/?#].*$/, ''),
        (e as Error).message,
      );
    }
    const d = await decide('http', target);
    if ('refused' in d) return void reply(d.refused);
    const u = new URL(req.url!);
    const headers = filterHeaders(req.rawHeaders, false);
    headers.unshift('Host', u.host);
    let current: http.ClientRequest | undefined;
    const send = (retried: boolean): void => {
      const client = clientIds.get(req.socket) ?? 0;
      const up = (current = pool.request({ method: req.method ?? 'GET', path: u.pathname + u.search, headers, port: target.port, dialList: d.dial, client }));
      let answered = false;
      up.once('socket', () => {
        if (!retried) record('http', target.origin, 'allowed');
      });
      up.on('response', (r) => {
        answered = true;
        res.writeHead(r.statusCode ?? 502, r.statusMessage, filterHeaders(r.rawHeaders, false));
        r.pipe(res);
        r.on('error', () => res.destroy());
      });
      up.on('error', (e) => {
        if (answered) return void res.destroy();
        if ((e as Partial<DialError>).egressDial) return refuse(502, target.origin, `connect failed: ${e.message}`, 'failed');
        // a kept-alive connection the server closed meanwhile: once more on a fresh one
        if (up.reusedSocket && !retried && REPLAYABLE.has(req.method ?? '') && !res.destroyed) return send(true);
        // The upstream failed after the connection (closed without a response, reset, idle): the
        // browser sees the failure as it would without a proxy (ERR_EMPTY_RESPONSE), not a 502 page
        // it would render and we would bill.
        res.destroy();
      });
      up.setTimeout(idle, () => up.destroy(new Error('idle')));
      if (retried) up.end();
      else req.pipe(up);
    };
    send(false);
    // the browser went away before the answer was through: the upstream request goes too
    res.on('close', () => {
      if (!res.writableFinished) current?.destroy();
    });
  }

  // CONNECT tunnels: https, wss and ws.
  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => void onConnect(req, client, head).catch((e) => fault(e, client)));
  async function onConnect(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    let target: Target;
    try {
      if (!/:\d{1,5}$/.test(req.url ?? '')) throw new MalformedTarget('CONNECT needs host:port');
      target = parseAuthority(req.url!, 0);
    } catch (e) {
      record(
        'connect',
        String(req.url ?? '')
          .slice(0, 100)
          .replace(/^.*@/, ''),
        'refused',
        (e as Error).message,
      );
      return writeRaw(client, STATUS_LINE[400]);
    }
    const up = await upstream('connect', target, client);
    if (!up) return;
    if (client.destroyed) return void up.destroy();
    record('connect', target.origin, 'allowed');
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) up.write(head);
    pipeBoth(client, up, idle);
  }

  // Absolute-URI requests carrying Upgrade (a WebSocket without CONNECT, if a client does that).
  server.on('upgrade', (req: http.IncomingMessage, client: Duplex, head: Buffer) => void onUpgrade(req, client, head).catch((e) => fault(e, client)));
  async function onUpgrade(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    let target: Target;
    let u: URL;
    try {
      target = parseTargetUrl(req.url ?? '').target;
      u = new URL(req.url!);
      if (u.protocol !== 'http:') throw new MalformedTarget('only http: upgrades are proxied');
    } catch (e) {
      record(
        'upgrade',
        String(req.url ?? '')
          .slice(0, 100)
          .replace(/[/?#].*$/, ''),
        'refused',
        (e as Error).message,
      );
      return writeRaw(client, STATUS_LINE[400]);
    }
    const up = await upstream('upgrade', target, client);
    if (!up) return;
    record('upgrade', target.origin, 'allowed');
    const h = filterHeaders(req.rawHeaders, true);
    let text = `${req.method} ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n`;
    for (let i = 0; i < h.length; i += 2) text += `${h[i]}: ${h[i + 1]}\r\n`;
    up.write(`${text}\r\n`);
    if (head.length) up.write(head);
    pipeBoth(client, up, idle);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    stats: () => ({ ...stats, recent: [...stats.recent] }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        pool.destroy();
      }),
  };
}
