// Common starting points, each a request body (the options it sets; the page to capture and the key
// stay as they are). `compare`: the preset compares with a baseline (POST /v1/compare).
export const PRESETS = [
  {
    id: 'share-card',
    name: 'Share card',
    description: '1200 × 630 at 2x: the picture a link shows on social sites (og:image).',
    body: { viewport: { width: 1200, height: 630, deviceScaleFactor: 2 } },
  },
  {
    id: 'phone',
    name: 'Phone',
    description: "An iPhone 15 Pro's screen, scale, touch and user agent.",
    body: { device: 'iPhone 15 Pro' },
  },
  {
    id: 'full-page',
    name: 'Full page',
    description: 'The whole scrollable page, its lazy content loaded.',
    body: { fullPage: true },
  },
  {
    id: 'comparison',
    name: 'Visual comparison',
    description: 'Compare with a baseline, both captures deterministic so only real changes show.',
    body: { deterministic: true },
    compare: true,
  },
];
