// Extensions profile: request fields beyond the spec (spec §9 lets an implementation ignore them).
// Every case names the fields it sends (`fields`) and runs only against an implementation whose
// GET /openapi.json declares them; each checks the field's effect as pixels, beside a control
// without it where the effect could be a coincidence.
import type { CaseSpec } from '../model/model.ts';
import { BLUE, box, color, GREEN, html, png, RED, SMALL } from './helpers.ts';

const VP = { ...SMALL };
const middle = box(100, 80, 120, 80);
const UA = 'ConformanceAgent/1.0 (screenshot-conformance)';

export const extensionCases: CaseSpec[] = [
  {
    id: 'ext.colorScheme.dark',
    tags: ['ignores-color-scheme'],
    must: 'The service MUST show the page its dark colour scheme with colorScheme "dark".',
    rules: ['X/colorScheme'],
    fields: ['colorScheme'],
    request: { body: html('ext-color-scheme', { viewport: VP, colorScheme: 'dark' }) },
    expect: png(320, 240, [color(middle, BLUE, 'dark scheme')]),
  },
  {
    id: 'ext.colorScheme.light',
    tags: ['ignores-color-scheme'],
    must: 'The service MUST show the page its light colour scheme with colorScheme "light".',
    rules: ['X/colorScheme'],
    fields: ['colorScheme'],
    request: { body: html('ext-color-scheme', { viewport: VP, colorScheme: 'light' }) },
    expect: png(320, 240, [color(middle, GREEN, 'light scheme')]),
  },
  {
    id: 'ext.userAgent.navigator',
    tags: ['ignores-user-agent'],
    must: 'The service MUST give the page the requested userAgent as navigator.userAgent.',
    rules: ['X/userAgent'],
    fields: ['userAgent'],
    request: { body: html('ext-user-agent', { viewport: VP, userAgent: UA }) },
    expect: png(320, 240, [color(middle, BLUE, 'navigator.userAgent is the one sent')]),
  },
  {
    id: 'ext.userAgent.request-header',
    tags: ['ignores-user-agent'],
    must: 'The service MUST send the requested userAgent as the User-Agent of the page request.',
    rules: ['X/userAgent'],
    fields: ['userAgent'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: `/echo?header=user-agent&value=${encodeURIComponent(UA)}` }, viewport: VP, userAgent: UA } },
    expect: png(320, 240, [color(middle, GREEN, 'the target saw the User-Agent')]),
  },
  {
    id: 'ext.headers.target-origin',
    tags: ['ignores-headers-and-cookies'],
    must: 'The service MUST send the requested headers with the request for the target page.',
    rules: ['X/headers'],
    fields: ['headers'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: '/echo?header=x-conformance&value=yes-7c1f' }, viewport: VP, headers: { 'X-Conformance': 'yes-7c1f' } } },
    expect: png(320, 240, [color(middle, GREEN, 'the target saw the header')]),
  },
  {
    id: 'ext.cookies.target-origin',
    tags: ['ignores-headers-and-cookies'],
    must: 'The service MUST send the requested cookies with the request for the target page.',
    rules: ['X/cookies'],
    fields: ['cookies'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: '/echo?cookie=conformance&value=c00k1e' }, viewport: VP, cookies: [{ name: 'conformance', value: 'c00k1e' }] } },
    expect: png(320, 240, [color(middle, GREEN, 'the target saw the cookie')]),
  },
  {
    id: 'ext.deterministic.identical',
    tags: ['ignores-deterministic'],
    must: 'The service MUST make two deterministic captures of a page with random colours, a clock and an endless animation identical, with the clock at 2025.',
    rules: ['X/deterministic'],
    fields: ['deterministic'],
    request: { body: html('ext-moving', { viewport: VP, deterministic: true }) },
    expect: {
      ...png(320, 240, [color(box(10, 10, 300, 40), GREEN, 'the clock reads 2025')]),
      relation: {
        request: { body: html('ext-moving', { viewport: VP, deterministic: true }) },
        expect: { status: 200, image: { type: 'png', width: 320, height: 240 } },
        relation: 'pixels-similar',
        maxDiffRatio: 0,
      },
    },
  },
  {
    id: 'ext.deterministic.control',
    tags: ['ignores-deterministic'],
    must: 'The service MUST capture the same page differently twice without deterministic (the random colours change), which shows the fixture moves.',
    rules: ['X/deterministic'],
    fields: ['deterministic'],
    request: { body: html('ext-moving', { viewport: VP }) },
    expect: {
      ...png(320, 240, [color(box(10, 10, 300, 40), RED, 'the real clock is not 2025')]),
      relation: {
        request: { body: html('ext-moving', { viewport: VP }) },
        expect: { status: 200, image: { type: 'png', width: 320, height: 240 } },
        relation: 'pixels-differ',
        minDiffRatio: 0.001,
      },
    },
  },
  {
    id: 'ext.captureOnTimeout.never-settles',
    tags: ['ignores-capture-on-timeout'],
    must: 'The service MUST answer 200 with the page as it is, within the render budget, when captureOnTimeout is set and waitForSelector never matches.',
    rules: ['X/captureOnTimeout'],
    fields: ['captureOnTimeout'],
    heavy: true,
    timeoutMs: 40_000,
    request: { body: html('never', { viewport: VP, waitForSelector: '#never', waitUntil: 'load', captureOnTimeout: true }) },
    expect: { ...png(320, 240, [color(middle, RED, 'the page as it was')]), maxDurationMs: 21_000 },
  },
  {
    id: 'ext.cacheTtl.zero-renders-afresh',
    tags: ['ignores-cache-ttl'],
    must: 'The service MUST render a url capture afresh when cacheTtl is 0, even right after the same capture.',
    rules: ['X/cacheTtl'],
    fields: ['cacheTtl'],
    needs: ['fixtures'],
    request: { body: { url: { $template: '{{fixtures:/pages/plain.html?case=cache-ttl-zero&n=}}{{nonce}}' }, viewport: VP, cacheTtl: 0 } },
    expect: png(320, 240, [color(middle, GREEN)], { headers: { 'x-cache': 'miss' } }),
    then: [
      {
        request: { body: { url: { $template: '{{fixtures:/pages/plain.html?case=cache-ttl-zero&n=}}{{nonce}}' }, viewport: VP, cacheTtl: 0 } },
        expect: png(320, 240, [color(middle, GREEN)], { headers: { 'x-cache': 'miss', 'x-credits-charged': '1' } }),
      },
    ],
  },
];
