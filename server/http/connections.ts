// Connection hygiene: how long a client may hold a connection without using it, and
// how many connections one client address may hold. Without these, Node's defaults let a client
// that sends its headers and 10 bytes of a body stay connected for 300 s (requestTimeout), and a
// client that connects and sends nothing at all stay forever; a handful of such clients hold every
// file descriptor. The values come from server/config.ts (docs/configuration.md):
//   headersTimeout   the whole request head must arrive within this (slowloris)
//   requestTimeout   the whole request, body included, must arrive within this. Node applies it
//                    only until the request is received, never to the render or the response
//   keepAliveTimeout an idle kept-alive connection is closed after this
//   idleTimeout      nothing moves for this long while the client is the one to act (a stalled
//                    body is cut here, before requestTimeout ends; so is an answer the client
//                    stops reading): closed. A connection whose request is being rendered is
//                    never closed by it: the render budget bounds that wait. (A connection that sends nothing at all: headersTimeout, Node
//                    counts it from the connection.)
//   perAddress       connections one remote address may hold at once; a connection beyond it
//                    first closes that address's oldest kept-alive connection waiting between
//                    requests, if it has one; otherwise it is closed at once, before a byte is
//                    read (0 = no limit). Behind a balancer every connection comes from the
//                    balancer's address: set it above its connection pool, or 0.
import type http from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  idleTimeoutMs: number;
  perAddress: number;
}

/** How often Node checks headersTimeout and requestTimeout (its default, 30 s, would stretch them). */
export const checkingIntervalMs = (l: ConnectionLimits) => Math.max(100, Math.min(1000, Math.floor(l.headersTimeoutMs / 4)));

/** Applies the limits to a server created with `connectionsCheckingInterval: checkingIntervalMs(l)`. */
export function limitConnections(server: http.Server, l: ConnectionLimits, onRefused: () => void): void {
  server.headersTimeout = l.headersTimeoutMs;
  server.requestTimeout = l.requestTimeoutMs;
  server.keepAliveTimeout = l.keepAliveTimeoutMs;

  /** The request a connection is on (HTTP/1.1 handles one at a time), while it is unanswered. */
  const current = new WeakMap<Socket, { req: http.IncomingMessage; res: http.ServerResponse }>();
  const perAddress = new Map<string, number>();
  /** Per address, its kept-alive connections between requests (answered, no new request yet), oldest first. */
  const idle = new Map<string, Set<Socket>>();
  const addressOf = (socket: Socket) => socket.remoteAddress ?? '';
  const setIdle = (socket: Socket, on: boolean) => {
    const addr = addressOf(socket);
    let set = idle.get(addr);
    if (on) {
      if (!set) idle.set(addr, (set = new Set()));
      set.add(socket);
    } else if (set?.delete(socket) && set.size === 0) idle.delete(addr);
  };

  server.on('connection', (socket: Socket) => {
    const addr = addressOf(socket);
    const n = perAddress.get(addr) ?? 0;
    if (l.perAddress > 0 && n >= l.perAddress) {
      // A client whose connections are mostly kept alive between requests (a pool) is not
      // refused: its oldest idle one makes room, as the client must expect of any idle
      // connection (RFC 9112 §9.8). Connections that are busy or have sent nothing yet are what
      // the limit is for: then the new one is refused.
      const spare = idle.get(addr)?.values().next().value;
      if (!spare) {
        onRefused();
        socket.destroy();
        return;
      }
      setIdle(spare, false);
      spare.destroy();
    }
    perAddress.set(addr, n + 1);
    socket.once('close', () => {
      setIdle(socket, false);
      const left = (perAddress.get(addr) ?? 1) - 1;
      if (left > 0) perAddress.set(addr, left);
      else perAddress.delete(addr);
    });
    socket.setTimeout(l.idleTimeoutMs);
  });

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    current.set(socket, { req, res });
    setIdle(socket, false);
    socket.setTimeout(l.idleTimeoutMs); // Node cleared the keep-alive timer: the body is timed too
    res.once('close', () => {
      if (current.get(socket)?.res !== res) return;
      current.delete(socket);
      if (!socket.destroyed) setIdle(socket, true);
    });
  });

  // With a 'timeout' listener on the server, Node leaves the decision to us (it would otherwise
  // destroy the socket, render in progress or not). Node re-arms the socket's timer itself with
  // keepAliveTimeout after a response, and clears it when the next request arrives.
  server.on('timeout', (socket: Socket) => {
    if (serverBusy(socket)) {
      socket.setTimeout(l.idleTimeoutMs); // rendering: look again later
      return;
    }
    // Timers run before the event loop reads its sockets. When this process was busy (a long
    // synchronous step, a starved CPU) past the timeout, the client's next request may already
    // sit unread in the socket: destroying now would answer it with a reset (ECONNRESET) although
    // it arrived in time. So decide after this turn's reads: anything read since keeps it.
    const readBefore = socket.bytesRead;
    setImmediate(() => {
      if (socket.destroyed) return;
      if (socket.bytesRead > readBefore || serverBusy(socket)) socket.setTimeout(l.idleTimeoutMs);
      else socket.destroy();
    });
  });

  function serverBusy(socket: Socket): boolean {
    const r = current.get(socket);
    return r !== undefined && r.req.complete && !r.res.headersSent;
  }
}
