// Metamorphic properties: relations between two captures of one drawn page (pages.ts) that every
// correct implementation keeps, whatever its engine and encoders. A picture made with an option
// ignored is still a valid picture of the right size and type, so no check of one answer alone
// sees it; set beside the capture without the option, or with another value of it, it shows.
// Each relation is a property (property.ts): drawn, seeded and shrunk like the others. Banner
// clean-up is off in every request: a drawn block is not a banner, and no heuristic should decide.
import fc from 'fast-check';
import type { Check, HttpRequestSpec } from '../model/model.ts';
import { drawnPage, inside, pageHtml, type DrawnPage } from './pages.ts';
import { channelDiff, pictureOf, pixel, share, shareCheck, type Shot } from './picture.ts';
import type { Property, PropertyContext, Trial } from './property.ts';
import { send } from './send.ts';

type Format = 'png' | 'jpeg' | 'webp';

const request = (page: DrawnPage, extra: Record<string, unknown> = {}): HttpRequestSpec => ({
  body: { html: pageHtml(page), viewport: { width: page.width, height: page.height }, blockCookieBanners: false, ...extra },
});

/** Sends the requests in order and decodes each answer as `type`. */
async function captures(ctx: PropertyContext, reqs: Array<{ label: string; req: HttpRequestSpec; type: Format }>) {
  const checks: Check[] = [];
  const shots: Shot[] = [];
  for (const r of reqs) {
    const res = await send(ctx, r.req);
    const p = await pictureOf(res, r.type, r.label);
    checks.push(...p.checks);
    shots.push(p.shot);
  }
  return {
    checks,
    shots,
    trial: (more: Check[]): Trial => ({ requests: reqs.map((r) => r.req), checks: [...checks, ...more], responses: shots.map((s) => s.res) }),
  };
}

const quality: Property = {
  id: 'quality-order',
  must: 'The service MUST give a lossy capture no more bytes at a lower quality than at a higher one of the same page, and a capture at quality 1 that differs from the one without quality, in JPEG and WebP alike.',
  rules: ['2.1/quality', '8/quality'],
  share: 0.4,
  async start(ctx) {
    return {
      arbitrary: fc.record({ page: drawnPage(), format: fc.constantFrom<Format>('jpeg', 'webp'), high: fc.integer({ min: 30, max: 100 }) }),
      async trial({ page, format, high }: { page: DrawnPage; format: Format; high: number }) {
        const c = await captures(ctx, [
          { label: 'quality 1', req: request(page, { format, quality: 1 }), type: format },
          { label: `quality ${high}`, req: request(page, { format, quality: high }), type: format },
          { label: 'no quality', req: request(page, { format }), type: format },
        ]);
        const [low, hi, none] = c.shots.map((s) => s.res.body);
        if (c.shots.some((s) => !s.image)) return c.trial([]);
        return c.trial([
          {
            name: `quality 1 gives no more bytes than quality ${high}`,
            pass: low!.length <= hi!.length,
            detail: `${low!.length} and ${hi!.length} bytes (${format})`,
          },
          { name: 'quality 1 differs from no quality', pass: !low!.equals(none!), detail: `${low!.length} and ${none!.length} bytes (${format})` },
        ]);
      },
    };
  },
};

/** omitBackground in a format with alpha: transparent exactly where the drawn page has no background, the page's colours elsewhere. */
function omitBackground(format: 'png' | 'webp'): Property {
  const lossy = format === 'webp';
  return {
    id: `omit-background-${format}`,
    must:
      format === 'png'
        ? 'The service MUST capture a page with omitBackground as PNG transparent exactly where the page has no background, with the colours it has without omitBackground everywhere else.'
        : 'The reference server MUST capture a page with omitBackground as WebP transparent exactly where the page has no background, opaque everywhere else.',
    rules: ['2.1/omitBackground'],
    share: 0.4,
    // the spec says PNG; keeping alpha in WebP is the reference's decision (pairs.ref)
    skip: (ctx) =>
      format === 'png' || ctx.profiles?.includes('reference')
        ? null
        : 'WebP with omitBackground keeps alpha by the reference decision: only with --profile reference',
    async start(ctx) {
      return {
        arbitrary: drawnPage({ maxSide: 200 }),
        async trial(page: DrawnPage) {
          const c = await captures(ctx, [
            { label: 'without omitBackground', req: request(page), type: 'png' },
            { label: `omitBackground ${format}`, req: request(page, { omitBackground: true, ...(format === 'png' ? {} : { format }) }), type: format },
          ]);
          const [plain, omit] = c.shots.map((s) => s.image);
          if (!plain || !omit) return c.trial([]);
          const bare = (x: number, y: number) => !inside(page.blocks, x, y);
          const solid = (x: number, y: number) => inside(page.blocks, x, y);
          // a lossy encoder may blur an edge: the pixels next to a block's edge are left out there
          const inner = (x: number, y: number) =>
            !lossy ||
            [-2, 2].every((d) => inside(page.blocks, x + d, y) === inside(page.blocks, x, y) && inside(page.blocks, x, y + d) === inside(page.blocks, x, y));
          const alphaMax = lossy ? 16 : 0;
          return c.trial([
            { name: `omitBackground ${format}: an alpha channel`, pass: omit.hasAlpha, detail: `hasAlpha ${omit.hasAlpha}` },
            shareCheck(
              'transparent where the page has no background',
              share(
                omit,
                (x, y) => bare(x, y) && inner(x, y),
                (x, y) => pixel(omit, x, y)[3] <= alphaMax,
              ),
              0.99,
            ),
            shareCheck(
              'opaque where the page has one',
              share(
                omit,
                (x, y) => solid(x, y) && inner(x, y),
                (x, y) => pixel(omit, x, y)[3] >= 255 - alphaMax,
              ),
              0.99,
            ),
            shareCheck(
              "the page's colours where it has a background",
              share(
                omit,
                (x, y) => solid(x, y) && inner(x, y) && x < plain.width && y < plain.height,
                (x, y) => channelDiff(pixel(omit, x, y), pixel(plain, x, y)) <= (lossy ? 48 : 2),
              ),
              0.98,
            ),
            shareCheck(
              'white without omitBackground where the page has no background',
              share(plain, bare, (x, y) =>
                pixel(plain, x, y)
                  .slice(0, 3)
                  .every((v) => v >= 250),
              ),
              0.99,
            ),
          ]);
        },
      };
    },
  };
}

type Mode = 'viewport' | 'fullPage' | 'selector';
/** The element a selector capture takes: the middle cell's block, which every drawn page has. */
const MIDDLE = { selector: '#b4', id: 'b4' };

const scale: Property = {
  id: 'scale',
  must: 'The service MUST scale the picture by viewport.deviceScaleFactor: at scale d the capture of the viewport, the full page or an element is d times the size of the one at scale 1, with the same colours at the same places.',
  rules: ['2.2/scale', '8/scale'],
  share: 0.4,
  async start(ctx) {
    return {
      arbitrary: fc.record({
        page: drawnPage({ maxSide: 200 }),
        mode: fc.constantFrom<Mode>('viewport', 'fullPage', 'selector'),
        d: fc.constantFrom(0.5, 1.5, 2, 3, 4, 0.2),
      }),
      async trial({ page, mode, d }: { page: DrawnPage; mode: Mode; d: number }) {
        const extra = mode === 'fullPage' ? { fullPage: true } : mode === 'selector' ? { selector: MIDDLE.selector } : {};
        const at = (s: number) => ({
          ...request(page, extra),
          body: { ...(request(page, extra).body as object), viewport: { width: page.width, height: page.height, deviceScaleFactor: s } },
        });
        const c = await captures(ctx, [
          { label: 'scale 1', req: at(1), type: 'png' },
          { label: `scale ${d}`, req: at(d), type: 'png' },
        ]);
        const [one, scaled] = c.shots.map((s) => s.image);
        if (!one || !scaled) return c.trial([]);
        const want = { width: Math.round(one.width * d), height: Math.round(one.height * d) };
        const size: Check = {
          name: `${mode}: d times the size at scale 1`,
          pass: scaled.width === want.width && scaled.height === want.height,
          detail: `${one.width}x${one.height} at scale 1, ${scaled.width}x${scaled.height} at scale ${d} (expected ${want.width}x${want.height})`,
        };
        // block centres, as offsets in the captured frame (a selector's frame starts at its block)
        const origin = mode === 'selector' ? page.blocks.find((b) => b.id === MIDDLE.id)! : { x: 0, y: 0 };
        const centres = page.blocks
          .filter((b) => !b.to && b.w * d >= 2 && b.h * d >= 2)
          .map((b) => ({ x: b.x + b.w / 2 - origin.x, y: b.y + b.h / 2 - origin.y }))
          .filter((p) => p.x >= 0 && p.y >= 0 && p.x < one.width && p.y < one.height && p.x * d < scaled.width && p.y * d < scaled.height);
        const moved = centres.filter(
          (p) => channelDiff(pixel(one, Math.floor(p.x), Math.floor(p.y)), pixel(scaled, Math.floor(p.x * d), Math.floor(p.y * d))) > 8,
        );
        return c.trial([
          size,
          {
            name: 'the same colours at the same places',
            pass: moved.length === 0,
            detail: `${centres.length - moved.length} of ${centres.length} block centres keep their colour at d times their place`,
          },
        ]);
      },
    };
  },
};

const hide: Property = {
  id: 'hide-selectors',
  must: 'The service MUST change a capture with hideSelectors exactly inside the boxes of the hidden elements: there the page without them shows, everywhere else the same pixels as without hideSelectors.',
  rules: ['2.1/hideSelectors', '4.1/rule-4-hideSelectors'],
  share: 0.4,
  async start(ctx) {
    return {
      arbitrary: drawnPage({ maxSide: 200 }).chain((page) =>
        fc.record({
          page: fc.constant(page),
          hidden: fc.subarray(
            page.blocks.map((b) => b.id),
            { minLength: 1 },
          ),
        }),
      ),
      async trial({ page, hidden }: { page: DrawnPage; hidden: string[] }) {
        const c = await captures(ctx, [
          { label: 'without hideSelectors', req: request(page), type: 'png' },
          { label: 'with hideSelectors', req: request(page, { hideSelectors: hidden.map((id) => `#${id}`) }), type: 'png' },
        ]);
        const [shown, hid] = c.shots.map((s) => s.image);
        if (!shown || !hid) return c.trial([]);
        const boxes = page.blocks.filter((b) => hidden.includes(b.id));
        const same = (x: number, y: number) => x < hid.width && y < hid.height && channelDiff(pixel(shown, x, y), pixel(hid, x, y)) <= 2;
        return c.trial([
          {
            name: 'the same size',
            pass: shown.width === hid.width && shown.height === hid.height,
            detail: `${shown.width}x${shown.height} and ${hid.width}x${hid.height}`,
          },
          shareCheck(
            `unchanged outside the hidden boxes (${hidden.join(', ')})`,
            share(shown, (x, y) => !inside(boxes, x, y), same),
            0.999,
          ),
          shareCheck(
            'changed inside them',
            share(
              shown,
              (x, y) => inside(boxes, x, y),
              (x, y) => !same(x, y),
            ),
            0.99,
          ),
        ]);
      },
    };
  },
};

const fullPageShort: Property = {
  id: 'full-page-short',
  must: 'The service MUST capture a page no taller than the viewport with fullPage as it captures the viewport: the same size and pixels.',
  rules: ['2.1/fullPage', '4.1/rule-1'],
  share: 0.3,
  async start(ctx) {
    return {
      arbitrary: drawnPage(),
      async trial(page: DrawnPage) {
        const c = await captures(ctx, [
          { label: 'viewport', req: request(page), type: 'png' },
          { label: 'fullPage', req: request(page, { fullPage: true }), type: 'png' },
        ]);
        const [view, full] = c.shots.map((s) => s.image);
        if (!view || !full) return c.trial([]);
        const sized = view.width === full.width && view.height === full.height;
        return c.trial([
          { name: 'the same size', pass: sized, detail: `${view.width}x${view.height} and ${full.width}x${full.height}` },
          ...(sized
            ? [
                shareCheck(
                  'the same pixels',
                  share(
                    view,
                    () => true,
                    (x, y) => channelDiff(pixel(view, x, y), pixel(full, x, y)) <= 2,
                  ),
                  0.999,
                ),
              ]
            : []),
        ]);
      },
    };
  },
};

/** The relations, each a property of the `properties` profile. */
export const RELATIONS: readonly Property[] = [quality, omitBackground('png'), omitBackground('webp'), scale, hide, fullPageShort];
