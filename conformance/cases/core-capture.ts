// Core profile: what comes back (spec §2.3), its size and content: formats, viewport and scale,
// full page, the selector's box, omitBackground and quality (§2.1, §2.2, §4.1 rules 1, 2, 9).
import type { CaseSpec, Probe, Region } from '../model/model.ts';
import { absent, around, BLUE, box, color, golden, GREEN, html, NAVY, png, quadrants, RED, WHITE, YELLOW } from './helpers.ts';

const VP = { width: 400, height: 300 };
/** fixtures/pages/very-tall.html: the colours of its bands, in order, cycling. */
const BAND_COLOURS: Array<[number, number, number]> = [
  RED,
  GREEN,
  BLUE,
  YELLOW,
  [0xff, 0x00, 0xff],
  [0x00, 0xc0, 0xc0],
  [0x80, 0x40, 0x00],
  [0x80, 0x80, 0x80],
];
/** Text regions left out of golden comparisons (with a margin: another engine may place glyphs a little differently). */
const TITLE_1280 = box(400, 320, 480, 80);
const shareCardText = (k: number) => [box(60 * k, 190 * k, 1080 * k, 190 * k), box(60 * k, 405 * k, 900 * k, 70 * k)];
/** The 1200x630 share card at scale k: its blocks where its CSS puts them, times k; the title's text masked in the golden. */
const shareCard = (k: number, goldenSays: string) =>
  png(
    1200 * k,
    630 * k,
    [
      color(box(0, 0, 1200 * k, 40 * k), YELLOW, 'top bar'),
      color(box(10 * k, 60 * k, 60 * k, 100 * k), NAVY, 'background'),
      color(box(1005 * k, 505 * k, 110 * k, 70 * k), GREEN, 'badge'),
      drawn(box(80 * k, 200 * k, 900 * k, 150 * k), 'the title is drawn'),
    ],
    { golden: golden(goldenSays, { mask: shareCardText(k) }) },
  );
/** At least 3% of the region is white: the text was drawn (any engine, any hinting). */
const drawn = (region: Region, label: string): Probe => ({ kind: 'color', region, rgb: WHITE, fraction: 0.03, label });
const blocks = (extra: Record<string, unknown> = {}) => html('blocks', { viewport: VP, ...extra });

function formatCase(format: 'png' | 'jpeg' | 'webp', explicit: boolean): CaseSpec {
  const ct = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' }[format];
  return {
    id: explicit ? `format.${format}` : 'format.default-png',
    ...(format === 'png' ? { tags: ['content-type-mislabel'] } : format === 'webp' ? { tags: ['format-ignored'] } : {}),
    must: explicit
      ? `The service MUST return ${format} bytes labelled ${ct} for format "${format}".`
      : 'The service MUST return PNG bytes labelled image/png when format is not given.',
    rules: ['2.3/content-type', '2.1/format', '1/raster-image', '2.3/success'],
    request: { body: blocks(explicit ? { format } : {}) },
    expect: {
      status: 200,
      image: { type: format, width: 400, height: 300 },
      probes: quadrants(400, 300, format === 'png' ? undefined : 32),
      headers: { 'content-type': { matches: `^${ct}\\s*(;|$)` } },
    },
  };
}

export const coreCaptureCases: CaseSpec[] = [
  formatCase('png', true),
  formatCase('jpeg', true),
  formatCase('webp', true),
  formatCase('png', false),
  {
    id: 'format.png-lossless',
    must: 'The service MUST return PNG pixels exactly as rendered (PNG is lossless): flat CSS colours come back unchanged.',
    rules: ['2.1/format'],
    request: { body: blocks({ format: 'png' }) },
    expect: png(400, 300, quadrants(400, 300, 0)),
  },
  {
    id: 'response.content-disposition',
    tags: ['drops-content-disposition'],
    must: 'The service MUST send content-disposition "inline" with a filename on success.',
    rules: ['2.3/content-disposition'],
    request: { body: blocks({ format: 'webp' }) },
    expect: {
      status: 200,
      image: { type: 'webp', width: 400, height: 300 },
      probes: quadrants(400, 300, 32),
      headers: { 'content-disposition': { matches: '^\\s*inline\\s*;.*filename\\*?\\s*=' } },
    },
  },
  {
    id: 'response.synchronous-raw-bytes',
    must: 'The service MUST answer in the same HTTP exchange with the raw image bytes, not a JSON envelope or a job.',
    rules: ['1/synchronous', '4.1/rule-9', '2.3/success', '4.1/endpoint'],
    request: { body: blocks() },
    expect: png(400, 300, quadrants(400, 300), { headers: { 'content-type': { matches: '^image/png' } } }),
  },

  // viewport and scale (§2.1 default, §2.2)
  {
    id: 'viewport.default-1280x720',
    tags: ['wrong-size'],
    must: 'The service MUST capture a 1280x720 frame when no viewport is given.',
    rules: ['2.1/viewport-default', '4.1/rule-1', '1/capture-modes'],
    request: { body: html('blocks') },
    expect: png(1280, 720, quadrants(1280, 720), {
      golden: golden('the default window is 1280x720 CSS px at scale 1: the quadrants meet exactly at (640, 360), no edge off by a pixel', {
        mask: [TITLE_1280],
      }),
    }),
  },
  {
    id: 'viewport.share-card-1200x630',
    tags: ['wrong-size'],
    must: 'The service MUST return exactly a 1200x630 image for viewport 1200x630.',
    rules: ['2.2/exact-frame', '4.1/rule-1'],
    request: { body: html('share-card', { viewport: { width: 1200, height: 630 } }) },
    expect: shareCard(1, 'the 1200x630 frame lays the card out where its CSS puts it: bar, badge and background edges exact'),
  },
  {
    id: 'viewport.share-card-retina-2x',
    tags: ['ignores-scale'],
    must: 'The service MUST return a 2400x1260 image for viewport 1200x630 at deviceScaleFactor 2, the same frame at twice the pixels.',
    rules: ['2.2/scale', '2.2/exact-frame', '8/scale'],
    request: { body: html('share-card', { viewport: { width: 1200, height: 630, deviceScaleFactor: 2 } }) },
    expect: shareCard(2, 'scale 2 doubles the layout: every block edge at twice its CSS position, none blurred by an upscaled 1x capture'),
  },
  {
    id: 'viewport.scale-3',
    tags: ['ignores-scale'],
    must: 'The service MUST return a 1200x900 image for viewport 400x300 at deviceScaleFactor 3.',
    rules: ['2.2/scale', '8/scale'],
    request: { body: blocks({ viewport: { ...VP, deviceScaleFactor: 3 } }) },
    expect: png(1200, 900, quadrants(1200, 900)),
  },
  {
    id: 'viewport.lays-out-in-window',
    tags: ['wrong-size'],
    must: 'The service MUST lay the page out in the given viewport: viewport-relative content fills a 600x200 frame.',
    rules: ['2.2/exact-frame', '4.1/rule-1'],
    request: { body: html('blocks', { viewport: { width: 600, height: 200 } }) },
    expect: png(600, 200, quadrants(600, 200)),
  },

  // §4.1 rule 1: viewport vs full page
  {
    id: 'capture.viewport-only',
    must: 'The service MUST capture only the viewport of a page taller than it when fullPage is not set.',
    rules: ['4.1/rule-1', '2.1/fullPage', '1/capture-modes'],
    request: { body: html('tall', { viewport: { width: 800, height: 600 } }) },
    expect: png(800, 600, [color(box(0, 0, 800, 600), RED, 'first band only')]),
  },
  {
    id: 'capture.full-page',
    tags: ['ignores-fullPage'],
    must: 'The service MUST capture the whole 3000 px scrollable page with fullPage: true, not just the 600 px viewport.',
    rules: ['4.1/rule-1', '2.1/fullPage', '1/capture-modes'],
    request: { body: html('tall', { viewport: { width: 800, height: 600 }, fullPage: true }) },
    expect: png(
      800,
      3000,
      [color(box(0, 0, 800, 990), RED, 'band 1'), color(box(0, 1010, 800, 980), GREEN, 'band 2'), color(box(0, 2010, 800, 990), BLUE, 'band 3')],
      {
        golden: golden('scroll and stitch: band edges at exactly 1000 and 2000 px, no seam, no repeated or missing rows'),
      },
    ),
  },
  {
    id: 'capture.full-page-stitched-20000',
    tags: ['truncates-tall-pages', 'ignores-fullPage'],
    must: 'The service MUST capture a 20000 px page whole with fullPage: true, every band in its place (scroll and stitch, no repeated or blank bands).',
    rules: ['2.1/fullPage', '4.1/rule-1'],
    heavy: true,
    request: { body: html('very-tall', { viewport: { width: 400, height: 600 }, fullPage: true, waitUntil: 'load' }) },
    expect: png(
      400,
      20000,
      Array.from({ length: 20 }, (_, i) => color(box(10, i * 1000 + 20, 380, 960), BAND_COLOURS[i % 8]!, `band ${i + 1}`)),
    ),
  },
  {
    id: 'capture.full-page-url',
    tags: ['ignores-fullPage'],
    must: 'The service MUST capture the whole scrollable page of a url with fullPage: true.',
    rules: ['4.1/rule-1', '2.1/fullPage'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: '/pages/tall.html' }, viewport: { width: 640, height: 480 }, fullPage: true } },
    expect: png(640, 3000, [color(around(320, 500), RED), color(around(320, 1500), GREEN), color(around(320, 2500), BLUE)]),
  },

  // §4.1 rule 2: the selector's box
  {
    id: 'selector.element-box',
    tags: ['drops-selector'],
    must: "The service MUST capture exactly the matched element's 320x180 box.",
    rules: ['4.1/rule-2', '2.1/selector', '1/capture-modes'],
    request: { body: html('element', { viewport: { width: 800, height: 600 }, selector: '#target' }) },
    expect: png(
      320,
      180,
      [
        color(box(4, 4, 150, 80), YELLOW, 'inner box, top-left'),
        color(box(170, 95, 145, 80), BLUE, 'target, bottom-right'),
        absent(box(0, 0, 320, 180), WHITE, 'no page background'),
      ],
      {
        golden: golden('the capture is exactly the element box: the inner box ends at (160, 90), nothing of the page around it'),
      },
    ),
  },
  {
    id: 'selector.outside-viewport',
    tags: ['drops-selector'],
    must: 'The service MUST capture a matched element that lies below the viewport.',
    rules: ['4.1/rule-2', '2.1/selector'],
    request: { body: html('element', { viewport: { width: 800, height: 600 }, selector: '#far' }) },
    expect: png(200, 100, [color(box(0, 0, 200, 100), GREEN)]),
  },
  {
    id: 'selector.wins-over-fullPage',
    tags: ['drops-selector'],
    must: 'The service MUST ignore fullPage when selector is set and capture only the element.',
    rules: ['2.1/fullPage', '4.1/rule-2'],
    request: { body: html('element', { viewport: { width: 800, height: 600 }, selector: '#target', fullPage: true }) },
    expect: png(320, 180, [color(box(4, 4, 150, 80), YELLOW), color(box(170, 95, 145, 80), BLUE)]),
  },
  {
    id: 'selector.not-found',
    tags: ['drops-selector', 'renames-error-code', 'error-body-not-json'],
    must: 'The service MUST answer 400 selector_not_found when the selector matches no element.',
    rules: ['4.1/rule-2', '7/row-5', '7/failure-body', '2.4/failure-body'],
    request: { body: html('element', { viewport: { width: 800, height: 600 }, selector: '#no-such-element' }) },
    expect: { status: 400, error: 'selector_not_found' },
  },
  {
    id: 'selector.not-found-url',
    tags: ['drops-selector', 'renames-error-code'],
    must: 'The service MUST answer 400 selector_not_found in url mode when the selector matches nothing.',
    rules: ['4.1/rule-2', '7/row-5'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: '/pages/element.html' }, selector: '.missing' } },
    expect: { status: 400, error: 'selector_not_found' },
  },
];
