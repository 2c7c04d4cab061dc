// The bench's client, in a process of its own (forked by bench/turns.ts): it sends the requests
// and times them, so that neither its work nor its timers share an event loop with a server it
// measures. Contenders are measured in turns: every round gives each one `perRound` captures, one
// at a time with `gapMs` between them, the order turning by one each round, so that a host whose
// speed drifts weighs on each alike. The reused-page floor has no server: this process drives its
// page itself (bench/floor.ts's work: setContent + Chromium's default capture on a page kept open).
import { launchBrowser, type LaunchedBrowser } from '../server/toolkit/browser.ts';
import type { ClientPlan, ClientReport, TurnSample } from './turns.ts';

type Shot = { ok: boolean; status: number; steps?: Record<string, number> };

/** Server-Timing `name;dur=12.3;desc="..."` entries, by name (a name that repeats is summed). */
function stepsOf(header: string | null): Record<string, number> | undefined {
  if (!header) return undefined;
  const steps: Record<string, number> = {};
  for (const entry of header.split(',')) {
    const [name, ...params] = entry.trim().split(';');
    const dur = params.map((p) => /^\s*dur=([\d.]+)/.exec(p)?.[1]).find(Boolean);
    if (name && dur) steps[name] = (steps[name] ?? 0) + Number(dur);
  }
  return steps;
}

async function shootHttp(c: { url: string; headers: Record<string, string>; body: string }): Promise<Shot> {
  const res = await fetch(c.url, { method: 'POST', headers: c.headers, body: c.body });
  const buf = Buffer.from(await res.arrayBuffer());
  return { ok: res.status === 200 && buf.length > 0, status: res.status, steps: stepsOf(res.headers.get('server-timing')) };
}

async function run(plan: ClientPlan): Promise<ClientReport> {
  let floorBrowser: LaunchedBrowser | undefined;
  const shooters = await Promise.all(
    plan.contenders.map(async (c) => {
      if (c.kind === 'http') return () => shootHttp(c);
      floorBrowser ??= await launchBrowser({ executablePath: c.executablePath, args: [] });
      const page = await floorBrowser.browser.newPage();
      await page.setViewport({ width: 1280, height: 720 });
      return async (): Promise<Shot> => {
        await page.setContent(c.html, { waitUntil: 'load' });
        const bytes = await page.screenshot({ type: 'png' });
        return { ok: bytes.length > 0, status: 200 };
      };
    }),
  );
  const gap = () => new Promise((r) => setTimeout(r, plan.gapMs));
  try {
    // Warm-up, not counted: the first contexts, the store, the JIT of each path.
    for (let i = 0; i < plan.warmup; i++)
      for (const s of shooters) {
        await s();
        await gap();
      }
    const samples: TurnSample[] = [];
    for (let round = 0; round < plan.rounds; round++) {
      for (let k = 0; k < shooters.length; k++) {
        const at = (round + k) % shooters.length;
        const name = plan.contenders[at]!.name;
        const perRound = plan.contenders[at]!.perRound ?? plan.perRound;
        for (let i = 0; i < perRound; i++) {
          const t = performance.now();
          const r: Shot = await shooters[at]!().catch(() => ({ ok: false, status: 0 }));
          samples.push({ name, round, ms: performance.now() - t, ok: r.ok, status: r.status, ...(r.steps ? { steps: r.steps } : {}) });
          await gap();
        }
      }
    }
    return { samples };
  } finally {
    await floorBrowser?.close();
  }
}

// The bench gone (killed, crashed): nothing left to report to, and the floor's browser goes with this process.
process.once('disconnect', () => process.exit(1));
process.once('message', (plan: ClientPlan) => {
  run(plan).then(
    (report) => process.send!(report, () => process.exit(0)),
    (e) => process.send!({ samples: [], error: String(e) }, () => process.exit(1)),
  );
});
