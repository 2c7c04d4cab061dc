// Requests of the image tests: small captures, slow ones, steady load from client loops, and the
// tally of what came back (every reply is kept, for the ledger).
import { shootOrFailure, type Reply } from '../support/http.ts';

export const viewport = { width: 32, height: 24 };
let seq = 0;

/** A small page, different each time (so that it is rendered, not served from the cache). */
export const quickHtml = () => ({
  html: `<body style="margin:0;background:#0a0"><!-- ${process.pid}-${++seq} --></body>`,
  viewport,
  waitUntil: 'load' as const,
});

/** A page that keeps its render busy for `ms` (waitForSelector on an element added late). */
export const slowHtml = (ms: number) => ({
  html: `<body style="margin:0;background:#00a"><!-- ${process.pid}-${++seq} --><script>setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<i id=late></i>'), ${ms})</script></body>`,
  waitForSelector: '#late',
  viewport,
  waitUntil: 'load' as const,
});

/** Every reply of this run, for the ledger check. */
export const replies: Reply[] = [];

/** POST /v1/screenshot; a network failure is a reply with status -1 (a failure of its own). */
export async function send(base: string, body: object): Promise<Reply> {
  const r = await shootOrFailure(base, body);
  replies.push(r);
  return r;
}

/** `clients` loops sending back to back until stop() (at most `max` each). */
export function steadyLoad(base: string, clients: number, body: (i: number) => object, max = 500) {
  let on = true;
  const got: Reply[] = [];
  const loops = Array.from({ length: clients }, async () => {
    for (let i = 0; on && i < max; i++) got.push(await send(base, body(i)));
  });
  return {
    got,
    /** Resolves when every loop has sent its `max`. */
    done: Promise.all(loops).then(() => got),
    async stop() {
      on = false;
      await Promise.all(loops);
      return got;
    },
  };
}

export function tally(rs: Reply[]) {
  const failed = rs.filter((r) => r.status !== 200);
  return {
    sent: rs.length,
    ok: rs.length - failed.length,
    failed: failed.length,
    billed: rs.filter((r) => r.status === 200 && r.headers.get('x-credits-charged') === '1').length,
    cached: rs.filter((r) => r.status === 200 && r.headers.get('x-cache') === 'hit').length,
    statuses: [...new Set(failed.map((r) => `${r.status} ${r.json?.error ?? ''} ${r.json?.message ?? ''}`.trim()))].join('; '),
  };
}

export async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}

export async function readyz(base: string): Promise<{ status: number; message?: string }> {
  const r = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
  if (!r) return { status: -1 };
  const j = (await r.json().catch(() => ({}))) as { message?: string };
  return { status: r.status, message: j.message };
}
