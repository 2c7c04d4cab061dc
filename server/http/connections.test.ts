// Connection hygiene at the socket level (connections.ts), on a bare HTTP server over loopback:
// the races between a client's kept-alive connection and the server's timers. The API-level
// timeouts and the per-address limit are tested through the real server in test/api/connections.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Agent, fetch } from 'undici';
import { checkingIntervalMs, limitConnections, type ConnectionLimits } from './connections.ts';

// undici keeps a connection only if the server's Keep-Alive hint leaves it more than 2 s
// (its keepAliveTimeoutThreshold): 3 s here, and Node closes 1 s after the hint (keepAliveTimeoutBuffer).
const limits: ConnectionLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 3000, idleTimeoutMs: 10_000, perAddress: 8 };
const SERVER_CLOSES_AFTER_MS = limits.keepAliveTimeoutMs + 1000;

let server: http.Server;
let url: string;
before(async () => {
  server = http.createServer({ connectionsCheckingInterval: checkingIntervalMs(limits) }, (req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  limitConnections(server, limits, () => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

/** Blocks this process's event loop (client and server alike), as a synchronous step of a test does. */
const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

test('a request that reached the server while its process was busy past the keep-alive timeout is served, not reset', async () => {
  // The request goes out on the kept-alive connection from a timer callback, which then keeps the
  // process busy past the server's keep-alive timeout: when the loop runs again, the server's
  // timer comes before the read of the request. undici counts its idle time in ticks of its own
  // timer, so it does not see the stall and rightly reuses the connection. Destroying the socket
  // then (what the server did) answered a request that arrived in time with a reset: ECONNRESET.
  const agent = new Agent({ connections: 1 });
  try {
    for (let i = 0; i < 2; i++) {
      const first = await fetch(url, { method: 'POST', body: 'a', dispatcher: agent });
      assert.equal(await first.text(), 'ok');
      const sent = await new Promise<{ reply: Promise<string> }>((resolve) =>
        setTimeout(() => {
          const reply = fetch(url, { method: 'POST', body: 'b', dispatcher: agent }).then((r) => r.text());
          reply.catch(() => undefined);
          block(SERVER_CLOSES_AFTER_MS + 700);
          resolve({ reply });
        }, 0),
      );
      const got = await sent.reply.catch((e: Error) => `${e} (${(e.cause as Error | undefined)?.message})`);
      assert.equal(got, 'ok', `try ${i + 1}`);
    }
  } finally {
    await agent.close();
  }
});

interface RawConnection {
  socket: net.Socket;
  /** Everything received so far. */
  got(): string;
  closed: Promise<void>;
}

/** A raw connection from 127.0.0.1; with `request`, sends it and waits for the answer (kept alive after). */
async function connect(request?: string): Promise<RawConnection> {
  const { port } = server.address() as AddressInfo;
  const socket = net.connect({ port, host: '127.0.0.1' });
  let got = '';
  socket.on('data', (d) => (got += d.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  if (request) {
    socket.write(request);
    // the answer, or the end of the connection without one
    await Promise.race([
      closed,
      new Promise<void>((resolve) => {
        const check = () => (/\r\n\r\nok$/.test(got) ? resolve() : socket.once('data', check));
        check();
      }),
    ]);
  }
  return { socket, got: () => got, closed };
}
const GET = 'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n';

test(`at the per-address limit (${limits.perAddress}), kept-alive connections between requests make room: the oldest is closed, the new one served`, async () => {
  const pool = [];
  for (let i = 0; i < limits.perAddress; i++) pool.push(await connect(GET));
  try {
    const extra = await connect(GET);
    assert.match(extra.got(), /^HTTP\/1\.1 200 /, 'the new connection is served');
    await pool[0]!.closed; // the oldest idle one made room
    assert.equal(pool.slice(1).filter((c) => c.socket.destroyed).length, 0, 'only the oldest');
    extra.socket.destroy();
  } finally {
    for (const c of pool) c.socket.destroy();
    await Promise.all(pool.map((c) => c.closed));
  }
});

test('connections that have sent nothing (or are busy) count fully: the next one from that address is refused, unread', async () => {
  const held = [];
  for (let i = 0; i < limits.perAddress; i++) held.push(await connect());
  try {
    const extra = await connect();
    extra.socket.write(GET);
    await extra.closed;
    assert.equal(extra.got(), '', 'no answer on the refused connection');
    assert.equal(held.filter((c) => c.socket.destroyed).length, 0, 'the held ones stay');
  } finally {
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
  }
});
