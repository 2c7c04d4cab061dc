// Extensions profile: the fields that prepare the page before the picture (css, js, actions,
// blockResourceTypes, blockUrls, clip, delay, failOnTargetError). Each case names the fields it
// sends and runs only where the implementation's OpenAPI document declares them; each checks the
// field's effect as pixels (or, for blocking, as pixels beside a capture without it).
import type { CaseSpec, Probe, Region } from '../model/model.ts';
import { absent, BLUE, box, color, GREEN, html, png, RED, SMALL, YELLOW } from './helpers.ts';

const VP = { ...SMALL };
/** Every pixel of the region exactly this colour: clip is exact to the pixel. */
const exact = (region: Region, rgb: [number, number, number], label: string): Probe => ({ kind: 'color', region, rgb, tolerance: 0, fraction: 1, label });
/** The squares of ext-csp.html and ext-block.html (left and right). */
const LEFT = box(40, 60, 80, 80);
const RIGHT = box(200, 60, 80, 80);
const quiet = { viewport: VP, waitUntil: 'load', blockCookieBanners: false } as const;
const BLOCK_PAGE = { url: { $fixtureUrl: '/pages/ext-block.html' }, ...quiet };
const without = (body: Record<string, unknown>) => ({ request: { body }, expect: { status: 200, image: { type: 'png' as const, width: 320, height: 240 } } });

export const extPrepareCases: CaseSpec[] = [
  {
    id: 'ext.css.under-csp',
    tags: ['ignores-css'],
    must: "The service MUST apply css to a page whose Content-Security-Policy is default-src 'none'.",
    rules: ['X/css'],
    fields: ['css'],
    request: { body: html('ext-csp', { ...quiet, css: '#a { background: #20a040 !important }' }) },
    expect: png(320, 240, [color(LEFT, GREEN, 'css turned #a green'), color(RIGHT, RED, 'the rest untouched')]),
  },
  {
    id: 'ext.js.main-world-under-csp',
    tags: ['ignores-js'],
    must: "The service MUST run js in the page's main world under default-src 'none', calling the page's own function, and await the promise it returns.",
    rules: ['X/js'],
    fields: ['js'],
    request: { body: html('ext-csp', { ...quiet, js: "return new Promise((resolve) => setTimeout(() => { paint('b', '#2050d0'); resolve(); }, 300));" }) },
    expect: png(320, 240, [color(RIGHT, BLUE, "the page's paint() ran, after the awaited wait"), color(LEFT, RED, 'the rest untouched')]),
  },
  {
    id: 'ext.js.throws',
    tags: ['ignores-js'],
    must: "The service MUST answer a js that throws with a 4xx error naming the error's message, without quoting the script.",
    rules: ['X/js'],
    fields: ['js'],
    request: { body: html('plain', { ...quiet, js: 'const secretName9 = 1; throw new Error("widget-gone-4f2")' }) },
    expect: { status: '4xx', message: 'widget-gone-4f2', messageExcludes: 'secretName9' },
  },
  {
    id: 'ext.actions.menu',
    tags: ['ignores-actions'],
    must: 'The service MUST run actions in order: a click that opens a menu, text typed into its field, Enter pressed there, and capture the result.',
    rules: ['X/actions'],
    fields: ['actions'],
    request: { body: html('ext-actions', { ...quiet, actions: [{ click: '#open' }, { type: '#q', text: 'hello' }, { press: 'Enter' }] }) },
    expect: png(320, 240, [
      color(box(170, 80, 20, 30), BLUE, 'the menu is open'),
      color(box(240, 20, 60, 60), GREEN, 'the text was typed'),
      color(box(20, 170, 160, 20), YELLOW, 'Enter was pressed in the field'),
    ]),
  },
  {
    id: 'ext.actions.missing-element',
    tags: ['ignores-actions'],
    must: "The service MUST answer 400 selector_not_found naming the action when an action's element does not exist, without quoting the selector.",
    rules: ['X/actions'],
    fields: ['actions'],
    request: { body: html('ext-actions', { ...quiet, actions: [{ click: '#open' }, { click: '#secret-button-3c' }] }) },
    expect: { status: 400, error: 'selector_not_found', message: 'actions\\[1\\]', messageExcludes: 'secret-button-3c' },
  },
  {
    id: 'ext.blockResourceTypes.image',
    tags: ['ignores-block-resource-types'],
    must: 'The service MUST refuse the page\'s images with blockResourceTypes ["image"] (the green under the image shows) and say so in x-blocked-requests.',
    rules: ['X/blockResourceTypes'],
    fields: ['blockResourceTypes'],
    needs: ['fixtures'],
    request: { body: { ...BLOCK_PAGE, blockResourceTypes: ['image'] } },
    expect: {
      ...png(320, 240, [color(LEFT, GREEN, 'no image over the green'), color(RIGHT, BLUE, 'the stylesheet still loaded')], {
        headers: { 'x-blocked-requests': { integer: true, min: 1 } },
      }),
      relation: { ...without(BLOCK_PAGE), relation: 'pixels-differ', minDiffRatio: 0.05 },
    },
  },
  {
    id: 'ext.blockUrls.stylesheet',
    tags: ['ignores-block-urls'],
    must: 'The service MUST refuse the requests whose URL matches a blockUrls pattern (the stylesheet), and only those (the image still loads).',
    rules: ['X/blockUrls'],
    fields: ['blockUrls'],
    needs: ['fixtures'],
    request: { body: { ...BLOCK_PAGE, blockUrls: ['*/ext-block.css*'] } },
    expect: {
      ...png(320, 240, [color(RIGHT, RED, 'the stylesheet never applied'), color(LEFT, RED, 'the image did load')]),
      relation: { ...without(BLOCK_PAGE), relation: 'pixels-differ', minDiffRatio: 0.05 },
    },
  },
  {
    id: 'ext.clip.exact-scale-2',
    tags: ['ignores-clip'],
    must: 'The service MUST capture exactly the clip region, times the scale factor, far below the window: a 50 x 30 box at scale 2 is a 100 x 60 image, all of it the box.',
    rules: ['X/clip'],
    fields: ['clip'],
    request: { body: html('ext-clip', { ...quiet, viewport: { ...VP, deviceScaleFactor: 2 }, clip: { x: 101, y: 1201, width: 50, height: 30 } }) },
    expect: png(100, 60, [exact(box(0, 0, 100, 60), GREEN, 'every pixel is the box')]),
  },
  {
    id: 'ext.clip.edges-scale-1',
    tags: ['ignores-clip'],
    must: 'The service MUST place the clip region to the pixel: one CSS pixel more on each side shows exactly one row and column of the page around the box.',
    rules: ['X/clip'],
    fields: ['clip'],
    request: { body: html('ext-clip', { ...quiet, clip: { x: 100, y: 1200, width: 52, height: 32 } }) },
    expect: png(52, 32, [
      exact(box(1, 1, 50, 30), GREEN, 'the box, from the second pixel'),
      exact(box(1, 0, 50, 1), RED, 'row 1200 of the page (red) above it'),
      exact(box(1, 31, 50, 1), BLUE, 'row 1231 (blue) below it'),
      absent(box(0, 0, 1, 32), GREEN, 'the column left of it'),
      absent(box(51, 0, 1, 32), GREEN, 'the column right of it'),
    ]),
  },
  {
    id: 'ext.clip.full-page-scale-2',
    tags: ['ignores-clip'],
    must: 'The service MUST capture exactly the clip region with fullPage too: at scale 2, one CSS pixel around the box is two rows and columns of the page.',
    rules: ['X/clip'],
    fields: ['clip'],
    request: {
      body: html('ext-clip', { ...quiet, fullPage: true, viewport: { ...VP, deviceScaleFactor: 2 }, clip: { x: 100, y: 1200, width: 52, height: 32 } }),
    },
    expect: png(104, 64, [
      exact(box(2, 2, 100, 60), GREEN, 'the box'),
      exact(box(2, 0, 100, 2), RED, 'row 1200 above it'),
      absent(box(0, 0, 2, 64), GREEN, 'left of it'),
      absent(box(102, 0, 2, 64), GREEN, 'right of it'),
    ]),
  },
  {
    id: 'ext.delay.late-change',
    tags: ['ignores-delay'],
    must: 'The service MUST wait delay milliseconds before the capture: a page that turns green 2 s after it loads is green with delay 3500.',
    rules: ['X/delay'],
    fields: ['delay'],
    request: { body: html('ext-delay', { ...quiet, delay: 3500 }) },
    expect: png(320, 240, [color(box(100, 80, 120, 80), GREEN, 'the colour after 2 s')]),
  },
  {
    id: 'ext.failOnTargetError.404',
    tags: ['ignores-fail-on-target-error'],
    must: 'The service MUST answer an error instead of a picture when failOnTargetError is set and the target answers 404.',
    rules: ['X/failOnTargetError'],
    fields: ['failOnTargetError'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: '/status?code=404&case=fail-on-target-error' }, ...quiet, failOnTargetError: true } },
    expect: { status: Array.from({ length: 200 }, (_, i) => 400 + i) },
  },
  {
    id: 'ext.failOnTargetError.200',
    tags: ['ignores-fail-on-target-error'],
    must: 'The service MUST capture a target that answers 200 as usual when failOnTargetError is set.',
    rules: ['X/failOnTargetError'],
    fields: ['failOnTargetError'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: '/pages/plain.html?case=fail-on-target-error-200' }, ...quiet, failOnTargetError: true } },
    expect: png(320, 240, [color(box(100, 80, 120, 80), GREEN)]),
  },
];
