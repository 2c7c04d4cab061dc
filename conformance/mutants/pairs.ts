// Mutants that break only where two options meet (the kinds of bug the pairwise cases are for):
// each is right on every option alone and wrong on one pair. Their cases are the generated ones
// holding that pair (pairwise/cases.ts pairwiseCasesWith), so the set follows the generator.
import sharp from 'sharp';
import { PAGE_HEIGHT } from '../pairwise/fixture.ts';
import { pairwiseCasesWith } from '../pairwise/cases.ts';
import type { Mutant } from './mutant.ts';
import { body, isShot, jsonOf } from './proxy.ts';

type Body = Record<string, any>;

/** Removes a field when the body holds a pair's other value. */
const dropWhen = (when: (b: Body) => boolean, drop: (b: Body) => Body) => body((b) => (when(b) ? drop(b) : b));
const noScale = (b: Body): Body =>
  b.viewport && typeof b.viewport === 'object' ? { ...b, viewport: { width: b.viewport.width, height: b.viewport.height } } : b;
const without =
  (field: string) =>
  (b: Body): Body => {
    const { [field]: _gone, ...rest } = b;
    return rest;
  };
const SCALED = ['0.1', '2', '4'];
const HIDING = ['lid', 'lid+root'];

export const PAIR_MUTANTS: Mutant[] = [
  {
    id: 'pair-scale-with-fullPage',
    breaks: '2.2/scale',
    description: 'drops deviceScaleFactor when fullPage is set',
    cases: pairwiseCasesWith({ fullPage: 'on', scale: SCALED }),
    hooks: dropWhen((b) => b.fullPage === true, noScale),
  },
  {
    id: 'pair-scale-with-selector',
    breaks: '2.2/scale',
    description: 'drops deviceScaleFactor when a selector is set (the element captured at scale 1)',
    cases: pairwiseCasesWith({ selector: 'on', scale: SCALED }),
    hooks: dropWhen((b) => b.selector !== undefined, noScale),
  },
  {
    id: 'pair-scale-with-lossy-format',
    breaks: '2.2/scale',
    description: 'drops deviceScaleFactor for jpeg and webp (the lossy path renders at scale 1)',
    cases: pairwiseCasesWith({ format: ['jpeg', 'webp'], scale: SCALED }),
    hooks: dropWhen((b) => b.format === 'jpeg' || b.format === 'webp', noScale),
  },
  {
    id: 'pair-webp-alpha-lost',
    breaks: '2.1/omitBackground',
    description: 'loses transparency in WebP (omitBackground dropped with format webp)',
    cases: pairwiseCasesWith({ format: 'webp', omitBackground: 'on' }, ['reference']), // the spec states transparency for PNG only; DESIGN §3 for WebP
    hooks: dropWhen((b) => b.format === 'webp', without('omitBackground')),
  },
  {
    id: 'pair-alpha-lost-on-fullPage',
    breaks: '2.1/omitBackground',
    description: 'loses transparency on full-page captures (omitBackground dropped with fullPage)',
    cases: pairwiseCasesWith({ fullPage: 'on', omitBackground: 'on' }),
    hooks: dropWhen((b) => b.fullPage === true, without('omitBackground')),
  },
  {
    id: 'pair-alpha-lost-on-selector',
    breaks: '2.1/omitBackground',
    description: 'loses transparency on element captures (omitBackground dropped with a selector)',
    cases: pairwiseCasesWith({ selector: 'on', omitBackground: 'on' }),
    hooks: dropWhen((b) => b.selector !== undefined, without('omitBackground')),
  },
  {
    id: 'pair-hide-on-fullPage',
    breaks: '4.1/rule-4-hideSelectors',
    description: 'ignores hideSelectors on full-page captures',
    cases: pairwiseCasesWith({ fullPage: 'on', hideSelectors: HIDING }),
    hooks: dropWhen((b) => b.fullPage === true, without('hideSelectors')),
  },
  {
    id: 'pair-hide-with-selector',
    breaks: '4.1/rule-4-hideSelectors',
    description: 'ignores hideSelectors on element captures',
    cases: pairwiseCasesWith({ selector: 'on', hideSelectors: HIDING }),
    hooks: dropWhen((b) => b.selector !== undefined, without('hideSelectors')),
  },
  {
    id: 'pair-wait-before-fullPage',
    breaks: '4.1/rule-6-wait',
    description: 'skips waitForSelector before a full-page capture',
    cases: pairwiseCasesWith({ fullPage: 'on', waitForSelector: 'on' }),
    hooks: dropWhen((b) => b.fullPage === true, without('waitForSelector')),
  },
  {
    id: 'pair-wait-with-load',
    breaks: '4.1/rule-6-wait',
    description: 'skips waitForSelector when waitUntil is load (captures at the load event)',
    cases: pairwiseCasesWith({ waitUntil: 'load', waitForSelector: 'on' }),
    hooks: dropWhen((b) => b.waitUntil === 'load', without('waitForSelector')),
  },
  {
    id: 'pair-fullPage-stops-at-document',
    breaks: '4.1/rule-1',
    description: "cuts a full-page capture at the document's height when the window is taller",
    cases: pairwiseCasesWith({ fullPage: 'on', selector: 'off', viewport: 'max-height' }),
    hooks: {
      async onResponse(res, req) {
        const b = isShot(req.path, req.method) ? jsonOf(req) : null;
        if (!b || res.status !== 200 || b.fullPage !== true || b.selector !== undefined) return res;
        const rows = Math.round(PAGE_HEIGHT * (b.viewport?.deviceScaleFactor ?? 1));
        const img = sharp(res.body, { limitInputPixels: false });
        const m = await img.metadata();
        if (!m.height || m.height <= rows) return res;
        const cut = img.extract({ left: 0, top: 0, width: m.width!, height: rows });
        const format = m.format === 'jpeg' ? cut.jpeg() : m.format === 'webp' ? cut.webp() : cut.png();
        return { ...res, body: await format.toBuffer() };
      },
    },
  },
  // Extensions: the field honoured alone, lost next to one spec option.
  {
    id: 'pair-colorScheme-on-fullPage',
    breaks: 'X/colorScheme',
    description: 'loses colorScheme on full-page captures',
    cases: pairwiseCasesWith({ fullPage: 'on', colorScheme: 'dark' }),
    hooks: dropWhen((b) => b.fullPage === true, without('colorScheme')),
  },
  {
    id: 'pair-userAgent-in-html-mode',
    breaks: 'X/userAgent',
    description: "sets userAgent only on navigation (html mode keeps the browser's)",
    cases: pairwiseCasesWith({ source: 'html', userAgent: 'agent' }),
    hooks: dropWhen((b) => b.html !== undefined, without('userAgent')),
  },
  {
    id: 'pair-deterministic-with-selector',
    breaks: 'X/deterministic',
    description: 'skips deterministic on element captures',
    cases: pairwiseCasesWith({ selector: 'on', deterministic: 'on' }),
    hooks: dropWhen((b) => b.selector !== undefined, without('deterministic')),
  },
  {
    id: 'pair-actions-with-selector',
    breaks: 'X/actions',
    description: 'skips actions on element captures',
    cases: pairwiseCasesWith({ selector: 'on', actions: 'press' }),
    properties: ['valid'],
    hooks: dropWhen((b) => b.selector !== undefined, without('actions')),
  },
  {
    id: 'pair-js-on-fullPage',
    breaks: 'X/js',
    description: 'skips js before a full-page capture',
    cases: pairwiseCasesWith({ fullPage: 'on', selector: 'off', js: 'paint' }),
    properties: ['valid'],
    hooks: dropWhen((b) => b.fullPage === true, without('js')),
  },
];
