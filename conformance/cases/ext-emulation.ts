// Extensions profile: emulating the visitor (device, timezone, locale, geolocation, mediaType,
// reducedMotion, javaScriptEnabled, and colorScheme with them). One probe page,
// fixtures/pages/ext-emulation.html, reports what it sees as a 4 x 4 grid of blocks filling the
// viewport; its JavaScript values are read by its first inline script. Probes look at block
// centres in fractions of the image, so the same probe works at any viewport and scale.
import type { CaseSpec, Region } from '../model/model.ts';
import { badRequest, BLUE, color, GREEN, html, png, RED, WHITE, YELLOW, absent, box } from './helpers.ts';

/** The probe page's blocks, row by row (the page's own comment says what each shows). */
export const EMULATION_BLOCKS = [
  'zone',
  'offset',
  'lang',
  'intl',
  'header',
  'touch',
  'mobile',
  'ua',
  'print',
  'motion',
  'scheme',
  'position',
  'scripts',
  'worker',
  'frame',
  'unused',
] as const;
export type EmulationBlock = (typeof EMULATION_BLOCKS)[number];

/** The values the probe page shows green (it spells them itself: a page imports nothing). */
export const EMULATED = {
  timezone: 'Asia/Tokyo',
  locale: 'de-CH',
  device: 'iPhone 15 Pro', // 393 x 659 at scale 3, mobile, touch, an iPhone's user agent
  geolocation: { latitude: 47.3769, longitude: 8.5417 },
} as const;

/** The middle of a block (a quarter of it each way), as fractions of the image: clear of its label. */
export function blockRegion(b: EmulationBlock): Region {
  const i = EMULATION_BLOCKS.indexOf(b);
  return { unit: 'fraction', x: (i % 4) / 4 + 1 / 16, y: Math.floor(i / 4) / 4 + 1 / 16, w: 1 / 8, h: 1 / 8 };
}

const shows = (b: EmulationBlock, rgb: [number, number, number], what: string) => color(blockRegion(b), rgb, `${b}: ${what}`);
const green = (b: EmulationBlock, what: string) => shows(b, GREEN, what);

const VP = { width: 320, height: 240 };
const page = (extra: Record<string, unknown>) => html('ext-emulation', { viewport: VP, ...extra });
const pageUrl = (extra: Record<string, unknown>) => ({ url: { $fixtureUrl: '/pages/ext-emulation.html' }, viewport: VP, ...extra });
export const emulationCases: CaseSpec[] = [
  {
    id: 'ext.timezone.first-script',
    tags: ['ignores-timezone'],
    must: 'The service MUST give the page the requested timezone (Intl, Date and offset) from its first inline script.',
    rules: ['X/timezone'],
    fields: ['timezone'],
    request: { body: page({ timezone: EMULATED.timezone }) },
    expect: png(320, 240, [green('zone', 'Intl time zone is Asia/Tokyo'), green('offset', 'new Date(0) is 09:00, offset -540')]),
  },
  {
    id: 'ext.timezone.unknown',
    tags: ['ignores-timezone'],
    must: 'The service MUST answer 400 naming timezone for a time zone that does not exist.',
    rules: ['X/timezone'],
    fields: ['timezone'],
    request: { body: { html: '<p>x</p>', timezone: 'Mars/Olympus_Mons' } },
    expect: badRequest('timezone'),
  },
  {
    id: 'ext.locale.url',
    tags: ['ignores-locale'],
    must: "The service MUST make the requested locale the page's navigator.language, default Intl locale and Accept-Language, all the same.",
    rules: ['X/locale'],
    fields: ['locale'],
    needs: ['fixtures'],
    request: { body: pageUrl({ locale: EMULATED.locale }) },
    expect: png(320, 240, [green('lang', 'navigator.language(s) de-CH'), green('intl', 'Intl locale de-CH'), green('header', 'Accept-Language de-CH')]),
  },
  {
    id: 'ext.locale.html',
    tags: ['ignores-locale'],
    must: 'The service MUST give markup the requested locale as navigator.language and default Intl locale from its first inline script.',
    rules: ['X/locale'],
    fields: ['locale'],
    request: { body: page({ locale: EMULATED.locale }) },
    expect: png(320, 240, [green('lang', 'navigator.language(s) de-CH'), green('intl', 'Intl locale de-CH')]),
  },
  {
    id: 'ext.locale.malformed',
    tags: ['ignores-locale'],
    must: 'The service MUST answer 400 naming locale for a value that is not a BCP 47 language tag.',
    rules: ['X/locale'],
    fields: ['locale'],
    request: { body: { html: '<p>x</p>', locale: 'de_CH,fr;q=0.9' } },
    expect: badRequest('locale'),
  },
  {
    id: 'ext.timezone-locale.workers-and-frames',
    tags: ['ignores-timezone', 'ignores-locale'],
    must: 'The service MUST give an iframe and a dedicated worker of the page the requested timezone and locale too.',
    rules: ['X/timezone', 'X/locale'],
    fields: ['timezone', 'locale'],
    needs: ['fixtures'],
    request: { body: pageUrl({ timezone: EMULATED.timezone, locale: EMULATED.locale }) },
    expect: png(320, 240, [green('worker', 'the worker sees Asia/Tokyo and de-CH'), green('frame', "the iframe's first script sees Asia/Tokyo and de-CH")]),
  },
  {
    id: 'ext.device.preset',
    tags: ['ignores-device'],
    must: 'The service MUST render a device preset at its viewport and scale, as a mobile touch device with its user agent.',
    rules: ['X/device'],
    fields: ['device'],
    request: { body: html('ext-emulation', { device: EMULATED.device }) },
    expect: png(1179, 1977, [
      green('touch', 'touch events, maxTouchPoints, pointer: coarse'),
      green('mobile', 'a mobile viewport'),
      green('ua', "a phone's user agent"),
    ]),
  },
  {
    id: 'ext.device.viewport-override',
    tags: ['ignores-device'],
    must: "The service MUST let an explicit viewport replace a preset's size while it stays a mobile touch device at the preset's scale.",
    rules: ['X/device'],
    fields: ['device'],
    request: { body: page({ device: EMULATED.device }) },
    expect: png(960, 720, [green('touch', 'still touch'), green('mobile', 'still a mobile viewport')]),
  },
  {
    id: 'ext.device.unknown',
    tags: ['ignores-device'],
    must: 'The service MUST answer 400 naming device for a preset name it does not have.',
    rules: ['X/device'],
    fields: ['device'],
    request: { body: { html: '<p>x</p>', device: 'Nokia 3310 (2000)' } },
    expect: badRequest('device'),
  },
  {
    id: 'ext.geolocation.granted',
    tags: ['ignores-geolocation'],
    must: 'The service MUST report the requested geolocation to the target page.',
    rules: ['X/geolocation'],
    fields: ['geolocation'],
    needs: ['fixtures'],
    request: { body: pageUrl({ geolocation: EMULATED.geolocation }) },
    expect: png(320, 240, [green('position', 'latitude 47.3769, longitude 8.5417')]),
  },
  {
    id: 'ext.geolocation.refused-without',
    tags: ['ignores-geolocation'],
    must: "The service MUST refuse a page's request for the position at once when no geolocation is given.",
    rules: ['X/geolocation'],
    fields: ['geolocation'],
    needs: ['fixtures'],
    request: { body: pageUrl({}) },
    expect: png(320, 240, [shows('position', BLUE, 'refused (not left waiting: yellow)')]),
  },
  {
    id: 'ext.mediaType.print',
    tags: ['ignores-media-type'],
    must: 'The service MUST lay the page out with its print style sheet with mediaType "print".',
    rules: ['X/mediaType'],
    fields: ['mediaType'],
    request: { body: page({ mediaType: 'print' }) },
    expect: png(320, 240, [green('print', '@media print applies'), green('scripts', 'scripts still run')]),
  },
  {
    id: 'ext.reducedMotion.reduce',
    tags: ['ignores-reduced-motion'],
    must: 'The service MUST show the page prefers-reduced-motion: reduce with reducedMotion "reduce".',
    rules: ['X/reducedMotion'],
    fields: ['reducedMotion'],
    request: { body: page({ reducedMotion: 'reduce' }) },
    expect: png(320, 240, [green('motion', 'prefers-reduced-motion: reduce')]),
  },
  {
    id: 'ext.reducedMotion.no-preference-wins',
    tags: ['ignores-reduced-motion'],
    must: 'The service MUST show the page prefers-reduced-motion: no-preference when reducedMotion says so, even with deterministic.',
    rules: ['X/reducedMotion'],
    fields: ['reducedMotion', 'deterministic'],
    request: { body: page({ reducedMotion: 'no-preference', deterministic: true }) },
    expect: png(320, 240, [shows('motion', BLUE, 'no-preference'), shows('scripts', GREEN, 'scripts ran')]),
  },
  {
    id: 'ext.javaScriptEnabled.false',
    tags: ['ignores-javascript-enabled'],
    must: 'The service MUST render the page without its scripts, its <noscript> content shown, with javaScriptEnabled false.',
    rules: ['X/javaScriptEnabled'],
    fields: ['javaScriptEnabled'],
    request: { body: page({ javaScriptEnabled: false, mediaType: 'print' }) },
    expect: png(320, 240, [shows('scripts', BLUE, '<noscript> applies'), shows('zone', YELLOW, 'no script ran'), shows('worker', YELLOW, 'no worker started')]),
  },
  {
    id: 'ext.javaScriptEnabled.banner-still-hidden',
    tags: ['ignores-javascript-enabled'],
    must: 'The service MUST still hide a cookie banner of the markup when it renders the page without its scripts.',
    rules: ['X/javaScriptEnabled'],
    fields: ['javaScriptEnabled'],
    request: { body: html('banner-basic', { viewport: { width: 640, height: 480 }, javaScriptEnabled: false }) },
    expect: png(640, 480, [absent(box(0, 340, 640, 140), RED, 'the red banner is gone'), color(box(520, 10, 100, 90), BLUE, 'the page header stays')]),
  },
  {
    id: 'ext.emulation.combined',
    tags: ['ignores-device'],
    must: 'The service MUST apply device, timezone, locale, mediaType, reducedMotion and colorScheme together.',
    rules: ['X/device', 'X/timezone', 'X/locale', 'X/mediaType', 'X/reducedMotion', 'X/colorScheme'],
    fields: ['device', 'timezone', 'locale', 'mediaType', 'reducedMotion', 'colorScheme'],
    request: {
      body: html('ext-emulation', {
        device: EMULATED.device,
        timezone: EMULATED.timezone,
        locale: EMULATED.locale,
        mediaType: 'print',
        reducedMotion: 'reduce',
        colorScheme: 'dark',
      }),
    },
    expect: png(
      1179,
      1977,
      (['zone', 'offset', 'lang', 'intl', 'touch', 'mobile', 'ua', 'print', 'motion', 'scheme', 'scripts', 'worker', 'frame'] as const)
        .map((b) => green(b, 'as asked'))
        .concat([shows('header', WHITE, 'html mode: no request to show it')]),
    ),
  },
];
