// Maintainer tool (not part of the package): renders every golden case's html fixture in other
// engines and launch flags, directly with puppeteer-core, and judges the image with the case's
// own probes and golden tolerance. It backs RUNNING.md "Goldens": which configurations the goldens
// hold on. Loopback only: the fixtures are self-contained html.
//   node --import tsx conformance/tools/goldens-across-engines.ts [--out DIR] [--no-mask]
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import puppeteer, { type Browser } from 'puppeteer-core';
import { allCases } from '../cases/index.ts';
import { compareImages } from '../engine/compare.ts';
import { decodeImage, encodePng, readPng } from '../engine/image.ts';
import { isMcpRequest, type Case } from '../model/model.ts';
import { resolveValue } from '../engine/resolve.ts';
import { REPO_ROOT } from '../fixture-pages/fixtures.ts';
import { judge } from '../engine/verdict.ts';
import { readFileSync } from 'node:fs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium-headless-shell';
const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
const root = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
const ENGINES: Array<{ name: string; launch: () => Promise<Browser> }> = [
  {
    name: 'chromium, the reference flags (--font-render-hinting=none, --force-color-profile=srgb)',
    launch: () =>
      puppeteer.launch({
        executablePath: CHROMIUM,
        headless: 'shell',
        args: [...root, '--font-render-hinting=none', '--force-color-profile=srgb', '--hide-scrollbars'],
      }),
  },
  {
    name: 'chromium, --font-render-hinting=full',
    launch: () =>
      puppeteer.launch({
        executablePath: CHROMIUM,
        headless: 'shell',
        args: [...root, '--font-render-hinting=full', '--force-color-profile=srgb', '--hide-scrollbars'],
      }),
  },
  {
    name: 'chromium, --font-render-hinting=medium, no colour profile flag',
    launch: () => puppeteer.launch({ executablePath: CHROMIUM, headless: 'shell', args: [...root, '--font-render-hinting=medium', '--hide-scrollbars'] }),
  },
  { name: 'firefox-esr (WebDriver BiDi)', launch: () => puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true }) },
];

async function render(browser: Browser, c: Case): Promise<Buffer> {
  if (isMcpRequest(c.request)) throw new Error('not an http case');
  const body = resolveValue(c.request.body, { baseUrl: '', apiKey: '', fixtureOrigins: [], nonce: 'goldens' }) as Record<string, any>;
  const vp = body.viewport ?? { width: 1280, height: 720, deviceScaleFactor: 1 };
  const page = await browser.newPage();
  try {
    await page.setViewport({ width: vp.width, height: vp.height, deviceScaleFactor: vp.deviceScaleFactor ?? 1 });
    await page.setContent(body.html, { waitUntil: 'load' });
    await page.addStyleTag({ content: 'html{scrollbar-width:none}' }); // what --hide-scrollbars does in Chromium
    await page.evaluate(() => document.fonts.ready.then(() => undefined));
    const opts = { omitBackground: body.omitBackground === true, fullPage: body.fullPage === true };
    if (body.selector) return Buffer.from(await (await page.$(body.selector))!.screenshot(opts));
    return Buffer.from(await page.screenshot(opts));
  } finally {
    await page.close();
  }
}

const { values: flags } = parseArgs({ options: { 'no-mask': { type: 'boolean', default: false }, out: { type: 'string' } } });
const noMask = flags['no-mask']; // how the goldens fared before text was masked
const out = flags.out;
const cases = allCases().filter((c) => c.expect.golden);
let failures = 0;
for (const engine of ENGINES) {
  const browser = await engine.launch();
  console.log(`\n${engine.name}: ${await browser.version()}`);
  try {
    for (const c of cases) {
      if (engine.name.startsWith('firefox') && (c.request as { body?: { omitBackground?: boolean } }).body?.omitBackground) {
        console.log(`  - ${c.id}: not run (puppeteer's WebDriver BiDi screenshots do not support omitBackground)`);
        continue;
      }
      const png = await render(browser, c);
      const { checks, image } = await judge(
        { ...c.expect, golden: undefined },
        { status: 200, headers: { 'content-type': 'image/png' }, body: png, durationMs: 0 },
      );
      const g = noMask ? { ...c.expect.golden!, mask: undefined } : c.expect.golden!;
      const cmp = compareImages(readPng(readFileSync(path.join(REPO_ROOT, 'golden', g.name ?? `${c.id}.png`))), image ?? (await decodeImage(png)), g);
      const bad = checks.filter((k) => !k.pass);
      const ok = bad.length === 0 && cmp.pass;
      if (!ok) failures++;
      console.log(`  ${ok ? '✓' : '✗'} ${c.id}: golden ${cmp.detail}${bad.map((k) => `; ✗ ${k.name}: ${k.detail}`).join('')}`);
      if (out) {
        mkdirSync(out, { recursive: true });
        const tag = engine.name.split(/[ ,]/)[0] + ENGINES.indexOf(engine);
        writeFileSync(path.join(out, `${c.id}.${tag}.png`), png);
        if (cmp.diff) writeFileSync(path.join(out, `${c.id}.${tag}.diff.png`), encodePng(cmp.diff));
      }
    }
  } finally {
    await browser.close();
  }
}
console.log(`\n${failures} failure(s)`);
process.exit(failures ? 1 : 0);
