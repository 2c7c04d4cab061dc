// The emulation probe page (fixtures/pages/ext-emulation.html) for tests: served on a test fixture
// with its /echo (the Accept-Language each request carried, recorded), and read back as the
// colour of each of its blocks (the layout the conformance cases use, conformance/cases/ext-emulation.ts).
import type http from 'node:http';
import { pageFixture } from '../../conformance/fixture-pages/fixtures.ts';
import { EMULATION_BLOCKS, type EmulationBlock } from '../../conformance/cases/ext-emulation.ts';
import { BLUE, GREEN, RED, WHITE, YELLOW } from '../../conformance/cases/helpers.ts';
import type { Fixture } from './fixture.ts';
import { near, type Raw } from './image.ts';

export { EMULATED } from '../../conformance/cases/ext-emulation.ts';

export type BlockColour = 'green' | 'blue' | 'red' | 'yellow' | 'white' | 'other';
export type Blocks = Record<EmulationBlock, BlockColour>;

/** Every block green but `except` (the `scripts` block and the spare one are never green when every field is sent). */
export function greenBut(...except: EmulationBlock[]): Partial<Blocks> {
  return Object.fromEntries(EMULATION_BLOCKS.filter((b) => !['scripts', 'unused', ...except].includes(b)).map((b) => [b, 'green']));
}

const COLOURS: Array<[BlockColour, readonly number[]]> = [
  ['green', GREEN],
  ['blue', BLUE],
  ['red', RED],
  ['yellow', YELLOW],
  ['white', WHITE],
];

/** The probe page's markup; `origin` makes its /echo iframe absolute (html mode has no origin of its own). */
export function probeHtml(origin?: string): string {
  const html = pageFixture('ext-emulation');
  return origin ? html.replace('src="/echo?', `src="${origin}/echo?`) : html;
}

/** Serves the probe page at /probe and its /echo on `fx`; returns the Accept-Language of every request, by path. */
export function serveProbe(fx: Fixture): { url: string; languages: Array<{ path: string; acceptLanguage: string | undefined }> } {
  const languages: Array<{ path: string; acceptLanguage: string | undefined }> = [];
  const record = (req: http.IncomingMessage, url: URL) => languages.push({ path: url.pathname, acceptLanguage: req.headers['accept-language'] });
  fx.route('/probe', (req, res, url) => {
    record(req, url);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(probeHtml());
  });
  fx.route('/echo', (req, res, url) => {
    record(req, url);
    const header = url.searchParams.get('header') ?? '';
    const ok = req.headers[header.toLowerCase()] === url.searchParams.get('value');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(`<body style="margin:0;height:100vh;background:${ok ? '#20a040' : '#e02020'}"></body>`);
  });
  return { url: `${fx.origin}/probe`, languages };
}

/** The colour of each block, read at its centre. */
export function blocksOf(img: Raw): Blocks {
  const out = {} as Blocks;
  EMULATION_BLOCKS.forEach((b, i) => {
    const px = img.at(Math.floor(((i % 4) + 0.5) * (img.width / 4)), Math.floor((Math.floor(i / 4) + 0.5) * (img.height / 4)));
    out[b] = COLOURS.find(([, rgb]) => near(px, rgb, 24))?.[0] ?? 'other';
  });
  return out;
}

/** The blocks of `blocks` named in `want`, for one deepEqual that shows every difference at once. */
export function pick(blocks: Blocks, want: Partial<Blocks>): Partial<Blocks> {
  return Object.fromEntries(Object.keys(want).map((k) => [k, blocks[k as EmulationBlock]]));
}
