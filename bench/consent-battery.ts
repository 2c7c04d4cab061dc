// The consent-library battery in the bench (`npm run bench -- --only cleanup`): the battery's
// pages (fixtures/consent-libraries/, the same pages and the same judge as
// test/consent/battery.test.ts) captured by ours with its defaults and by the two real peers
// (bench/peers.ts, `aligned` setting: 1280x720 at scale 1, their banner and ad blocking on), each
// judged against its own capture of the control page; with what the clean-up added to our renders
// on these pages (the Server-Timing steps cleanup-prep + banners + last-look, median).
// Pictures are kept in $PEER_SHOTS when it is set (a peer writes its own there, read back here).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { judge, MODES, type Mode, table, type Verdict } from '../fixtures/consent-libraries/judge.ts';
import { LIBRARIES, slug } from '../fixtures/consent-libraries/libraries.ts';
import { serveBattery } from '../fixtures/consent-libraries/site.ts';
import { startFixture } from '../test/support/fixture.ts';
import { stepDurations, type StartServer } from './cleanup-bench.ts';
import { type Contender, startBrowserless, startCaptureWebsite } from './peers.ts';

const CLEANUP_STEPS = ['cleanup-prep', 'banners', 'last-look'];

export interface BatteryContender {
  name: string;
  passed: number;
  total: number;
  verdicts: Verdict[];
}

export interface ConsentBatteryResult {
  contenders: BatteryContender[];
  /** Ours: the clean-up's steps on the battery's pages, median and max (ms). */
  cleanupMedianMs: number;
  cleanupMaxMs: number;
  libraries: number;
}

interface Shot {
  png: Buffer;
  action: string;
  cleanupMs?: number;
}

type Shooter = (url: string, mode: Mode, name: string) => Promise<Shot>;

function oursShooter(server: { shotUrl: string; key: string }): Shooter {
  return async (url, mode) => {
    const res = await fetch(server.shotUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` },
      body: JSON.stringify({ url, fullPage: mode === 'fullPage' }),
    });
    const png = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`ours: HTTP ${res.status}`);
    const steps = stepDurations(res.headers.get('server-timing'));
    return { png, action: res.headers.get('x-banner-action') ?? '', cleanupMs: CLEANUP_STEPS.reduce((s, k) => s + (steps[k] ?? 0), 0) };
  };
}

/** A peer writes its picture to $PEER_SHOTS/<file prefix>-<page name>.png (bench/peers.ts); read it back. */
function peerShooter(c: Contender, dir: string, prefix: string): Shooter {
  return async (url, mode, name) => {
    const shot = await c.shoot({ name, url, html: '', req: { fullPage: mode === 'fullPage' } });
    if (!shot.ok) throw new Error(`${c.name}: no picture`);
    return { png: readFileSync(path.join(dir, `${prefix}-${name}.png`)), action: '' };
  };
}

async function runBattery(name: string, shoot: Shooter, urls: ReturnType<typeof serveBattery>, cleanup: number[]): Promise<BatteryContender> {
  const verdicts: Verdict[] = [];
  for (const mode of MODES) {
    const control = await shoot(urls.controlUrl(`${name}-control-${mode}`), mode, `battery-control-${mode}`);
    for (const lib of LIBRARIES) {
      const run = `${name}-${slug(lib)}-${mode}`;
      try {
        const shot = await shoot(urls.pageUrl(lib, run), mode, `battery-${slug(lib)}-${mode}`);
        if (shot.cleanupMs !== undefined) cleanup.push(shot.cleanupMs);
        verdicts.push(judge(lib, mode, shot.png, control.png, urls.log(run), shot.action));
      } catch (e) {
        verdicts.push({ lib: lib.id, mode, diff: 1, height: 0, controlHeight: 0, trackers: 0, accepted: [], action: '', failures: [String(e)] });
      }
    }
  }
  return { name, passed: verdicts.filter((v) => v.failures.length === 0).length, total: verdicts.length, verdicts };
}

export async function benchConsentBattery(start: StartServer, executablePath: string): Promise<ConsentBatteryResult> {
  const fx = await startFixture({
    listen: [
      { host: '127.0.0.1', port: 0 },
      { host: '127.0.0.1', port: 0 },
    ],
  });
  const battery = serveBattery(fx);
  const ownShots = process.env.PEER_SHOTS === undefined;
  const dir = process.env.PEER_SHOTS ?? mkdtempSync(path.join(os.tmpdir(), 'bench-battery-'));
  process.env.PEER_SHOTS = dir; // where the peers write their pictures
  const server = await start(battery.hostPorts.join(','));
  const cleanup: number[] = [];
  const contenders: BatteryContender[] = [];
  try {
    contenders.push(await runBattery('ours', oursShooter(server), battery, cleanup));
    const cw = await startCaptureWebsite(executablePath, 'aligned');
    contenders.push(await runBattery(cw.name, peerShooter(cw, dir, 'capture-website'), battery, []));
    await cw.close();
    const bl = await startBrowserless(executablePath, 'aligned');
    try {
      contenders.push(await runBattery(bl.name, peerShooter(bl, dir, 'browserless'), battery, []));
    } finally {
      await bl.close();
    }
  } finally {
    await server.close();
    await fx.close();
    if (ownShots) {
      delete process.env.PEER_SHOTS;
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const sorted = [...cleanup].sort((a, b) => a - b);
  return {
    contenders,
    cleanupMedianMs: sorted[Math.floor(sorted.length / 2)] ?? NaN,
    cleanupMaxMs: sorted.at(-1) ?? NaN,
    libraries: LIBRARIES.length,
  };
}

/** The bench's rows (bench/bench.ts) and each contender's table. */
export function consentBatteryRows(r: ConsentBatteryResult): string[][] {
  return [
    [
      'cleanup: consent-library battery, passes',
      r.contenders.map((c) => `${c.name} ${c.passed}/${c.total}`).join(', '),
      String(r.contenders[0]?.passed ?? 0),
      `clean-up on these pages: median ${r.cleanupMedianMs.toFixed(0)} ms, max ${r.cleanupMaxMs.toFixed(0)} ms`,
      `${r.libraries} pages x 2 modes`,
    ],
  ];
}

export const consentBatteryTables = (r: ConsentBatteryResult) => r.contenders.map((c) => `${c.name}:\n${table(c.verdicts)}`).join('\n\n');

// Standalone: node --import tsx bench/consent-battery.ts (the battery alone, without the rest of --only cleanup)
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { startServer } = await import('../server/start.ts');
  const { loadConfig } = await import('../server/config.ts');
  const { BENCH_KEY, benchEnv } = await import('./server-env.ts');
  const dir = `${os.tmpdir()}/bench-battery-${process.pid}`;
  const config = loadConfig(benchEnv(dir));
  try {
    const r = await benchConsentBattery(async (allow) => {
      const s = await startServer(loadConfig({ ...benchEnv(dir), EGRESS_ALLOW: allow, CACHE_TTL_SECONDS: '0' }));
      return { shotUrl: `${s.url}/v1/screenshot`, key: BENCH_KEY, close: () => s.close() };
    }, config.chromiumPath);
    console.log(consentBatteryTables(r));
    for (const row of consentBatteryRows(r)) console.log(row.filter(Boolean).join(' | '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
