// Every fixture of fixtures/consent/manifest.json through the real clean-up in real Chromium
// (spec §4.1 rules 3-4): positives end clean with the expected x-banner-action, negatives are
// pixel-identical to the capture without clean-up, and no accept control is ever clicked.
// url mode for all (cleanup + control), html mode for those that do not need the second origin.
//   node --import tsx --test server/cleanup/fixtures.test.ts
//   CLEANUP_FIXTURES=onetrust,neg-app-shell   only these;  CLEANUP_SHOTS=/tmp/shots   keep PNGs
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PNG } from 'pngjs';
import { attachCleanup } from './index.ts';
import { pageSize } from '../render/capture.ts';
import { CONSENT_DIR } from '../../conformance/fixture-pages/fixtures.ts';
import { startFixtureServer, type FixtureServer } from '../../conformance/fixture-pages/fixture-server.ts';
import { readConsentManifest, type ManifestEntry, type ManifestProbe } from '../../fixtures/consent/manifest.ts';
import { launchChromium, type LaunchedBrowser } from '../../test/support/browser.ts';
import { probeFailures, type Probe } from '../../test/support/image.ts';

const only = process.env.CLEANUP_FIXTURES?.split(',').filter(Boolean);
const fixtures = readConsentManifest().fixtures.filter((f) => !only || only.includes(f.id));
const shotsDir = process.env.CLEANUP_SHOTS;
if (shotsDir) mkdirSync(shotsDir, { recursive: true });

const rgb = (h: string) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
/** A manifest probe, held strictly here: every pixel of the region within its tolerance. */
const strict = (p: ManifestProbe): Probe => ({
  kind: 'color',
  region: { x: p.x, y: p.y, w: p.w, h: p.h },
  rgb: rgb(p.expect),
  tolerance: p.tolerance,
  fraction: 1,
  label: p.name,
});
/** Consent was given if any pixel of the accept region has the accept colour. */
const noAccept = (a: ManifestEntry['acceptProbe']): Probe => ({
  kind: 'absent',
  region: { x: a.x, y: a.y, w: a.w, h: a.h },
  rgb: rgb(a.mustNotBe),
  tolerance: 7,
  fraction: 0,
  label: 'accept marker',
});

interface Run {
  png: PNG;
  raw: Buffer;
  action: string;
  consent: string | null;
  gone: string[];
  stayed: string[];
  blocked: string[];
}

let chromium: LaunchedBrowser;
let server: FixtureServer;
before(async () => {
  chromium = await launchChromium();
  server = await startFixtureServer();
});
after(async () => {
  await chromium?.close();
  await server?.close();
});

async function run(f: ManifestEntry, mode: 'url' | 'html', cleanup: boolean): Promise<Run> {
  const ctx = await chromium.browser.createBrowserContext();
  try {
    const page = await ctx.newPage();
    await page.setViewport({ width: 1280, height: 720 });
    const session = await attachCleanup(page, {
      blockCookieBanners: cleanup && (f.request.blockCookieBanners ?? true),
      hideSelectors: cleanup ? (f.request.hideSelectors ?? []) : [],
      blockAds: cleanup && (f.request.blockAds ?? false),
    });
    if (mode === 'url') await page.goto(`${server.origins[0]}/${f.file}`, { waitUntil: 'load' });
    else await page.setContent(readFileSync(path.join(CONSENT_DIR, path.basename(f.file)), 'utf8'), { waitUntil: 'load' });
    // networkidle2 as in the pipeline (spec §4.1 rule 5): a late banner's page keeps three requests
    // in flight until its banner is in the document (fixtures/consent/src/kit.ts lateBanner)
    await page.waitForNetworkIdle({ idleTime: 100, concurrency: 2, timeout: 15_000 });
    // as the render does when nothing of the request runs between them (server/cleanup/steps.ts):
    // finish() may leave the page's answer to the last look, right before the capture
    await session.finish(Date.now() + 15_000, { confirmAtLastLook: true });
    const action = await session.lastLook(Date.now() + 15_000);
    // A full page is sized as the server's capture sizes it (server/render/capture.ts pageSize:
    // the renderer's layout metrics, asked now), not by Chromium's own full-page path, which the
    // server never takes. Once under load (1 of 3 fresh CI runs, not reproduced since) that path
    // gave a 1280x720 picture of this page's unlocked 2000 px: if the unlock itself failed, this
    // size is 720 too and the test still fails.
    const clip = f.request.fullPage ? { x: 0, y: 0, ...(await pageSize(await page.createCDPSession())) } : undefined;
    const raw = Buffer.from(await page.screenshot({ type: 'png', ...(clip ? { clip, captureBeyondViewport: true } : {}) }));
    if (shotsDir) writeFileSync(path.join(shotsDir, `${f.id}-${mode}-${cleanup ? 'clean' : 'control'}.png`), raw);
    // no named functions inside evaluate callbacks: the TypeScript loader would wrap them in a
    // helper (__name) that does not exist in the page
    const dom = await page.evaluate(
      (gone: string[], stay: string[]) => {
        const shown = gone
          .concat(stay)
          .map((sel) =>
            Array.from(document.querySelectorAll(sel)).some((e) => (e as HTMLElement).checkVisibility({ opacityProperty: true, visibilityProperty: true })),
          );
        return {
          consent: document.documentElement.getAttribute('data-consent'),
          gone: gone.filter((_, i) => !shown[i]),
          stayed: stay.filter((_, i) => shown[gone.length + i]),
        };
      },
      f.mustBeGone,
      f.mustStay,
    );
    return { png: PNG.sync.read(raw), raw, action, ...dom, blocked: session.report?.blockedClicks ?? [] };
  } finally {
    await ctx.close();
  }
}

function checkClean(f: ManifestEntry, r: Run, mode: string) {
  assert.notEqual(r.consent, 'accepted', `${mode}: consent was accepted`);
  assert.deepEqual(probeFailures(r.png, [noAccept(f.acceptProbe)]), [], `${mode}: accept marker colour in the capture`);
  assert.deepEqual(r.blocked, [], `${mode}: the click guard had to refuse accept clicks`);
  assert.ok(f.acceptableActions.includes(r.action.split(':')[0]!), `${mode}: action ${r.action} not in ${f.acceptableActions}`);
  assert.equal(r.action, f.expectedAction, `${mode}: x-banner-action`);
  if (f.expectedAction.startsWith('rejected')) assert.equal(r.consent, 'rejected', `${mode}: the fixture did not see a reject`);
  assert.deepEqual(r.gone, f.mustBeGone, `${mode}: still rendered`);
  assert.deepEqual(r.stayed, f.mustStay, `${mode}: removed although it must stay`);
  assert.deepEqual(probeFailures(r.png, f.probes.map(strict)), [], `${mode}: probes`);
}

describe('consent fixtures (fixtures/consent/manifest.json)', () => {
  for (const f of fixtures) {
    test(`${f.kind} ${f.id}`, async () => {
      const control = await run(f, 'url', false);
      assert.deepEqual(probeFailures(control.png, f.controlProbes.map(strict)), [], 'control capture (no clean-up) does not show what the fixture promises');
      assert.notEqual(control.consent, 'accepted');
      const clean = await run(f, 'url', true);
      checkClean(f, clean, 'url');
      if (f.identicalToControl) assert.ok(clean.raw.equals(control.raw), 'url: capture differs from the capture without clean-up');
      if (!f.needsUrlMode) {
        const html = await run(f, 'html', true);
        checkClean(f, html, 'html');
      }
    });
  }
});
