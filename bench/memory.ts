// `node --import tsx bench/memory.ts [--levels 1,2,4] [--only card|fullPage]`: memory of one replica by concurrent
// renders, for sizing (README "Running at scale"). For each RENDER_CONCURRENCY C: a fresh server
// (on DATABASE_URL when set, as replicas run: no embedded store in the process), its idle
// footprint, then C clients making CAPTURES captures each back to back; the footprint is the
// proportional set size (PSS: shared pages divided among the processes sharing them) of the Node
// process and every Chromium process under it, sampled every 100 ms. The idle footprint grows with
// C too (C + 1 isolated contexts are kept prepared), so the figure for sizing is the slope of the
// peak over C: memory = base + C x per render. Not a test: it prints figures.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { startServer } from '../server/start.ts';
import { loadConfig } from '../server/config.ts';
import { BENCH_KEY, benchEnv } from './server-env.ts';

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const levels = (args.includes('--levels') ? args[args.indexOf('--levels') + 1]! : '1,2,4').split(',').map(Number);
const CAPTURES = 4;
// Two workloads: a share card (1200x630 viewport) and a long article captured as a full page.
const CARD = `<!doctype html><body style="margin:0;font:20px sans-serif;background:linear-gradient(135deg,#234,#a37)">
<h1 style="color:#fff;padding:60px">Share card ${'<span>words </span>'.repeat(30)}</h1></body>`;
const ARTICLE = `<!doctype html><body style="margin:0;font:16px serif"><main style="padding:24px;max-width:760px">
${'<h2>Section</h2><p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. </p>'.repeat(60)}</main></body>`;
const WORKLOADS = {
  card: { html: CARD, viewport: { width: 1200, height: 630 }, waitUntil: 'load', blockCookieBanners: false },
  'fullPage article': { html: ARTICLE, fullPage: true, waitUntil: 'load', blockCookieBanners: false },
};

function pssMiB(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]!) ?? []));
  return out;
}

const footprint = () => tree(process.pid).reduce((n, pid) => n + pssMiB(pid), 0);

for (const [name, payload] of Object.entries(WORKLOADS)) {
  if (only && !name.includes(only)) continue;
  const peaks: number[] = [];
  for (const c of levels) {
    const dataDir = `${os.tmpdir()}/bench-mem-${process.pid}-${c}`;
    const config = loadConfig(
      benchEnv(dataDir, {
        DATABASE_URL: process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? '',
        RENDER_CONCURRENCY: String(c),
        CACHE_TTL_SECONDS: '0',
      }),
    );
    const server = await startServer(config);
    const shoot = async () => {
      const r = await fetch(`${server.url}/v1/screenshot`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` },
        body: JSON.stringify(payload),
      });
      await r.arrayBuffer();
      return r.status;
    };
    for (let i = 0; i < 2; i++) await shoot(); // warm
    await new Promise((r) => setTimeout(r, 1500));
    const idle = footprint();
    let peak = idle;
    let done = 0;
    const failed: number[] = [];
    const timer = setInterval(() => (peak = Math.max(peak, footprint())), 100);
    const started = Date.now();
    await Promise.all(
      Array.from({ length: c }, async () => {
        for (let i = 0; i < CAPTURES; i++) {
          const status = await shoot();
          if (status === 200) done++;
          else failed.push(status);
        }
      }),
    );
    clearInterval(timer);
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    peaks.push(peak);
    console.log(
      `${name.padEnd(17)} C=${c}: idle ${idle.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB (${done} captures in ${((Date.now() - started) / 1000).toFixed(0)} s${failed.length ? `, failed: ${failed.join(' ')}` : ''})`,
    );
  }
  const n = levels.length;
  const mx = levels.reduce((a, b) => a + b, 0) / n;
  const my = peaks.reduce((a, b) => a + b, 0) / n;
  const slope = levels.reduce((a, x, i) => a + (x - mx) * (peaks[i]! - my), 0) / levels.reduce((a, x) => a + (x - mx) ** 2, 0);
  console.log(`${name.padEnd(17)} peak = ${(my - slope * mx).toFixed(0)} MiB + C x ${slope.toFixed(0)} MiB (least squares over C = ${levels.join(', ')})`);
}
console.log(`\n${os.cpus().length} cores, ${os.cpus()[0]?.model}, Node ${process.version}, PSS of Node + Chromium processes`);
