// Connection hygiene (server/http/connections.ts): a client that stalls is cut after
// the configured timeout, not after Node's 300 s, and so is one that stops reading its answer; a
// render longer than those timeouts is never cut; one address cannot hold more than
// MAX_CONNECTIONS_PER_IP connections while other addresses are still served. Short timeouts set
// for this file; raw sockets on loopback.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { startTestServer, TEST_KEY, type TestServer } from '../support/server.ts';
import { shoot, show } from '../support/http.ts';
import { eventually } from '../support/wait.ts';

const HEADERS_MS = 1000;
const REQUEST_MS = 1500;
const IDLE_MS = 2000;
const CAP = 4;
/** Node checks head and request timeouts every quarter of the head timeout (at most 1 s); scheduling on a busy machine. */
const MARGIN_MS = 1500;

let srv: TestServer;
let port: number;

before(async () => {
  srv = await startTestServer({
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    HTTP_KEEPALIVE_TIMEOUT_MS: '1000',
    HTTP_IDLE_TIMEOUT_MS: String(IDLE_MS),
    MAX_CONNECTIONS_PER_IP: String(CAP),
    // the noise captures below must not depend on the machine's speed (a budget cut is 504
    // render_timeout): at load 25 on 2 CPUs one took more than 5 s
    RENDER_BUDGET_MS: '20000',
  });
  port = srv.server.port;
});

after(async () => {
  await srv?.close();
});

interface Raw {
  socket: net.Socket;
  /** Resolves when the server closes the connection: after how long, and what it had sent. */
  closed: Promise<{ ms: number; got: string }>;
}

/** A raw connection from `localAddress` (127.0.0.1 unless given) that writes `data` and then nothing. */
async function raw(data: string, localAddress = '127.0.0.1'): Promise<Raw> {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const started = Date.now();
  let got = '';
  socket.on('data', (d) => (got += d.toString('latin1')));
  const closed = new Promise<{ ms: number; got: string }>((resolve) => {
    socket.on('error', () => {});
    socket.once('close', () => resolve({ ms: Date.now() - started, got }));
  });
  if (data) socket.write(data);
  return { socket, closed };
}

const head = (length: number) =>
  `POST /v1/screenshot HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('stalled clients are cut', () => {
  test('headers and 10 bytes of a 100-byte body, then nothing: closed within the request timeout', async () => {
    const c = await raw(head(100) + '{"html":"<');
    const { ms, got } = await c.closed;
    assert.ok(ms <= REQUEST_MS + MARGIN_MS, `closed after ${ms} ms`);
    assert.ok(got === '' || /^HTTP\/1\.1 408 /.test(got), `nothing rendered: ${got.slice(0, 40)}`);
  });

  test('half a request head, then nothing: closed within the head timeout', async () => {
    const c = await raw('POST /v1/screenshot HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const { ms } = await c.closed;
    assert.ok(ms <= HEADERS_MS + MARGIN_MS, `closed after ${ms} ms`);
  });

  test('a connection that sends nothing: closed within the head timeout', async () => {
    const c = await raw('');
    const { ms } = await c.closed;
    assert.ok(ms <= HEADERS_MS + MARGIN_MS, `closed after ${ms} ms`);
  });

  test('a client that stops reading its answer: cut once nothing moves for the idle timeout', async (t) => {
    // An answer larger than what the two sockets' kernel buffers hold on loopback (a few MB): a
    // 2800x2800 JPEG (quality 100) of noise, about 11 MB. Read until the head arrives, then stop
    // reading. JPEG: a PNG of noise costs the server seconds of compression, past even a 20 s
    // budget at load 22 on 2 CPUs; the JPEG is a fraction of that.
    const side = 2800;
    const html = `<body style="margin:0"><canvas id=c width=${side} height=${side}></canvas><script>
      const g = document.getElementById('c').getContext('2d'), d = g.createImageData(${side}, ${side}), a = new Uint32Array(d.data.buffer);
      let x = 1; for (let i = 0; i < a.length; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; a[i] = (x | 0xff000000) >>> 0; }
      g.putImageData(d, 0, 0);</script></body>`;
    const body = JSON.stringify({ html, waitUntil: 'load', viewport: { width: side, height: side }, format: 'jpeg', quality: 100 });
    const fetchRaw = async (stallMs: number) => {
      const c = await raw(head(Buffer.byteLength(body)) + body);
      let bytes = 0;
      let headText = '';
      const headSeen = new Promise<void>((resolve) =>
        c.socket.on('data', (d) => {
          if (!headText) {
            headText = d.toString('latin1').split('\r\n\r\n')[0]!;
            if (stallMs) c.socket.pause(); // from now on this client reads nothing
            resolve();
          }
          bytes += d.length;
        }),
      );
      await headSeen;
      const length = Number(/content-length: (\d+)/i.exec(headText)?.[1]);
      if (stallMs) {
        await new Promise((r) => setTimeout(r, stallMs));
        c.socket.resume(); // take what the kernel still holds, and the end
      }
      await c.closed.catch(() => undefined);
      return { status: headText.split(' ')[1], length, received: bytes - headText.length - 4 };
    };
    const whole = await fetchRaw(0);
    assert.equal(whole.status, '200');
    assert.ok(whole.length > 8_000_000, `an answer of ${whole.length} bytes`);
    assert.equal(whole.received, whole.length, 'a client that reads gets it all (control)');
    const stalled = await fetchRaw(IDLE_MS + MARGIN_MS + 1000);
    assert.equal(stalled.status, '200');
    t.diagnostic(
      `a client that stopped reading after the head got ${stalled.received} of ${stalled.length} bytes (what the kernel buffers held when the server cut it)`,
    );
    assert.ok(stalled.received < stalled.length, `the server gave up on the connection: ${stalled.received} of ${stalled.length} bytes`);
    assert.equal(
      (await shoot(srv.url, { html: '<p>x</p>', waitUntil: 'load', viewport: { width: 64, height: 48 } })).status,
      200,
      'and serves the next request',
    );
  });

  test('a render longer than every one of these timeouts is answered on its connection', async () => {
    const html = `<body style="margin:0;background:#c00"><script>setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<i id=late></i>'), ${IDLE_MS + 500})</script></body>`;
    const r = await shoot(srv.url, { html, waitForSelector: '#late', waitUntil: 'load', viewport: { width: 64, height: 48 } });
    assert.equal(r.status, 200, show(r));
    assert.ok(r.ms > IDLE_MS, `the render took ${r.ms} ms`);
  });
});

describe(`at most ${CAP} connections per client address`, () => {
  test('one more from the same address is closed at once; another address is served meanwhile', async () => {
    const held = await Promise.all(Array.from({ length: CAP }, () => raw('')));
    try {
      const extra = await raw('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const { ms, got } = await extra.closed;
      assert.equal(got, '', 'no answer on the refused connection');
      assert.ok(ms < IDLE_MS / 2, `closed after ${ms} ms, before any timeout`);
      const other = await new Promise<number>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/healthz', localAddress: '127.0.0.2', agent: false }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', reject);
      });
      assert.equal(other, 200, 'another address is served');
    } finally {
      for (const h of held) h.socket.destroy();
      await Promise.all(held.map((h) => h.closed));
    }
    // The server sees the closes a moment after this side does.
    assert.ok(
      await eventually(
        async () => (await shoot(srv.url, { html: '<p>x</p>', waitUntil: 'load', viewport: { width: 64, height: 48 } }).catch(() => undefined))?.status === 200,
        5000,
        100,
      ),
      'the address is served again once its connections closed',
    );
  });
});
