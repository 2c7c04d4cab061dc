// Reference profile: caching and billing, as the reference server's headers make them observable
// (DESIGN §3: x-cache, x-credits-charged, x-credits-remaining).
import type { CaseSpec } from '../model/model.ts';
import { html } from './helpers.ts';
import { ledgerUrlStep, plain, VP } from './reference.ts';

export const referenceBillingCases: CaseSpec[] = [
  // caching and billing (the reference server's headers make them observable)
  {
    id: 'ref.cache.url-hit-not-billed',
    tags: ['charges-cache-hits'],
    must: 'The reference server MUST serve a repeated url capture from cache (x-cache: hit) without charging a credit.',
    rules: ['D3/cache-header', '1/billing-cached', '8/cost'],
    needs: ['fixtures'],
    request: { body: { url: { $template: '{{fixtures:/pages/blocks.html?case=cache-hit&n=}}{{nonce}}' }, viewport: { width: 400, height: 300 } } },
    expect: { status: 200, image: { type: 'png', width: 400, height: 300 }, headers: { 'x-cache': 'miss', 'x-credits-charged': '1' } },
    then: [
      {
        request: { body: { url: { $template: '{{fixtures:/pages/blocks.html?case=cache-hit&n=}}{{nonce}}' }, viewport: { width: 400, height: 300 } } },
        expect: { status: 200, image: { type: 'png', width: 400, height: 300 }, headers: { 'x-cache': 'hit', 'x-credits-charged': '0' } },
      },
    ],
  },
  {
    id: 'ref.cache.html-never-cached',
    must: 'The reference server MUST NOT cache html renders: the same html twice is rendered and charged twice.',
    rules: ['D3/html-not-cached', '1/html-not-retained'],
    request: { body: plain({ fullPage: false, 'x-case': 'html-never-cached' }) },
    expect: { status: 200, image: { type: 'png', width: 320, height: 240 }, headers: { 'x-cache': 'miss', 'x-credits-charged': '1' } },
    then: [
      {
        request: { body: plain({ fullPage: false, 'x-case': 'html-never-cached' }) },
        expect: { status: 200, image: { type: 'png', width: 320, height: 240 }, headers: { 'x-cache': 'miss', 'x-credits-charged': '1' } },
      },
    ],
  },
  {
    id: 'ref.billing.ledger',
    must: 'The reference server MUST start a new key at 100 free credits, charge 1 per successful capture, and charge nothing for failures or cache hits.',
    rules: ['1/free-allowance', '8/free-allowance', '1/billing-success', '1/billing-failed', '1/billing-cached', '8/cost', 'D3/credits-headers'],
    needs: ['freshKey', 'fixtures'],
    request: { auth: 'fresh', body: plain() },
    expect: { status: 200, image: { type: 'png', width: 320, height: 240 }, headers: { 'x-credits-charged': '1', 'x-credits-remaining': '99' } },
    then: [
      {
        request: { auth: 'fresh', body: html('element', { viewport: VP, selector: '#nothing-here' }) },
        expect: { status: 400, error: 'selector_not_found', headers: { 'x-credits-charged': { present: false } } },
      },
      { request: { auth: 'fresh', body: plain({ quality: 5 }) }, expect: { status: 400, error: 'bad_request' } },
      ledgerUrlStep('miss', 0, -1),
      ledgerUrlStep('hit', 3, 0),
      {
        request: { auth: 'fresh', body: plain() },
        expect: {
          status: 200,
          image: { type: 'png', width: 320, height: 240 },
          headers: { 'x-credits-charged': '1' },
          compare: [{ read: { header: 'x-credits-remaining' }, fromStep: 4, plus: -1 }],
        },
      },
    ],
  },
];
