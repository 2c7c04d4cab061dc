// The curated data and the fixture set: every selector parses in Chromium, every entry has a note,
// the click guard classifies labels as intended, the pre-check knows every autoconsent CMP class,
// and fixtures/consent is generated, complete and self-contained.
//   node --import tsx --test server/cleanup/hide-list.test.ts
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { generate } from '../../fixtures/consent/generate.ts';
import { readConsentManifest } from '../../fixtures/consent/manifest.ts';
import { cmpName } from './index.ts';
import { hideList, loadHideList } from './hide-list.ts';
import { DYNAMIC_CMP_SNIFFS, sniffSpec } from './sniff.ts';
import { CONSENT_DIR } from '../../conformance/fixture-pages/fixtures.ts';
import { launchChromium, type LaunchedBrowser } from '../../test/support/browser.ts';

let chromium: LaunchedBrowser;
before(async () => void (chromium = await launchChromium()));
after(() => chromium?.close());

test('every selector of hide-list.json parses in Chromium, alone and as :is(...)', async () => {
  const { file } = loadHideList();
  const selectors = [...file.cmp, ...file.banner, ...file.overlay, ...file.backdrop, ...file.ads].map((e) => e.selector);
  const page = await chromium.browser.newPage();
  try {
    const bad = await page.evaluate((sels: string[]) => {
      const out: string[] = [];
      const sheet = new CSSStyleSheet();
      for (const s of sels) {
        try {
          document.querySelectorAll(s);
          sheet.insertRule(`:is(${s}):not(html):not(body){display:none !important}`);
        } catch {
          out.push(s);
        }
      }
      return out;
    }, selectors);
    assert.deepEqual(bad, []);
  } finally {
    await page.close();
  }
});

test('every entry carries a note and every pattern compiles', () => {
  const { file } = loadHideList();
  for (const group of [file.cmp, file.banner, file.overlay, file.backdrop, file.ads]) for (const e of group) assert.ok(e.note.length >= 5, e.selector);
  for (const e of file.scrollLockClasses) assert.match(e.name, /^[A-Za-z_][\w-]*$/, 'a class name');
  for (const p of [...file.consentText, ...file.overlayText, file.rejectLabel, file.acceptLabel, file.notAcceptLabel])
    assert.doesNotThrow(() => new RegExp(p.pattern, 'i'));
});

test('consent text patterns: banners in several languages match, ordinary copy does not', () => {
  const re = new RegExp(hideList.consentText, 'i');
  for (const t of [
    'We use cookies to improve your experience.',
    'This website uses cookies to ensure you get the best experience',
    'Wir verwenden Cookies, um Inhalte zu personalisieren.',
    'Nous utilisons des cookies pour améliorer votre expérience.',
    'Utilizamos cookies propias y de terceros.',
    'Questo sito utilizza cookie tecnici.',
    'Wij gebruiken cookies om onze website te verbeteren.',
    'We and our partners store and/or access information, and use cookies for personalised ads',
  ])
    assert.match(t, re, t);
  for (const t of ['Fresh cookies, baked daily', 'Cookie policy · Privacy · Terms', '2 items in your basket', 'Chat with us', 'Cookie settings'])
    assert.doesNotMatch(t, re, t);
});

test('click guard: accept-type labels are refused, reject and save-choices labels are not', () => {
  const accept = new RegExp(hideList.acceptLabel.pattern, 'i');
  const notAccept = new RegExp(hideList.notAcceptLabel.pattern, 'i');
  const refused = (label: string) => accept.test(label) && !notAccept.test(label);
  for (const l of [
    'Accept all',
    'Accept All Cookies',
    'I agree',
    'Allow all',
    'Got it!',
    'OK',
    'Alle akzeptieren',
    'Tout accepter',
    'Aceptar',
    'Accetta',
    'Accepteren',
    "That's ok",
    'Consent',
    'Agree & close',
    'Accept and continue',
  ])
    assert.ok(refused(l), `refuse "${l}"`);
  for (const l of [
    'Reject all',
    'Deny',
    'Do not consent',
    'Accept only essential cookies',
    'Nur essenzielle Cookies akzeptieren',
    'Allow selection',
    'Continue without accepting',
    'Confirm my choices',
    'Save & exit',
    'Manage options',
    'Tout refuser',
    'I decline',
    'Required Only',
    'Alle ablehnen',
  ])
    assert.ok(!refused(l), `allow "${l}"`);
});

test('the pre-check knows every CMP class of the installed autoconsent, and nearly every rule', () => {
  const require = createRequire(import.meta.url);
  const esm = readFileSync(path.join(path.dirname(require.resolve('@duckduckgo/autoconsent')), 'autoconsent.esm.js'), 'utf8');
  const m = /var dynamicCMPs = \[([^\]]*)\]/.exec(esm);
  assert.ok(m, 'dynamicCMPs list in the bundle');
  const names = m[1]!
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  assert.deepEqual(names.sort(), Object.keys(DYNAMIC_CMP_SNIFFS).sort(), 'update DYNAMIC_CMP_SNIFFS in sniff.ts');
  // rules whose detection the pre-check cannot see (an xpath-only alternative): keep this short
  assert.deepEqual(sniffSpec('https://example.com/', true).unsniffable, ['ubuntu.com']);
  assert.deepEqual(sniffSpec('https://example.com/', false).unsniffable, []);
});

test('cmpName makes a header-safe name', () => {
  assert.equal(cmpName('Onetrust'), 'onetrust');
  assert.equal(cmpName('Complianz banner'), 'complianz-banner');
  assert.equal(cmpName('consentmanager.net'), 'consentmanager.net');
  assert.equal(cmpName('HEURISTIC-REJECT'), 'heuristic');
  assert.equal(cmpName('ÄÖ ü'), 'unknown');
});

test('fixtures/consent is generated from generate.ts and up to date', () => {
  for (const [file, text] of generate(false))
    assert.equal(readFileSync(path.join(CONSENT_DIR, file), 'utf8'), text, `${file}: run node --import tsx fixtures/consent/generate.ts`);
});

test('manifest: at least 25 positive and 10 negative fixtures, every file present, no external request', () => {
  const manifest = readConsentManifest();
  const pos = manifest.fixtures.filter((f) => f.kind === 'positive');
  const neg = manifest.fixtures.filter((f) => f.kind === 'negative');
  assert.ok(pos.length >= 25, `${pos.length} positives`);
  assert.ok(neg.length >= 10, `${neg.length} negatives`);
  const files = new Set(readdirSync(CONSENT_DIR));
  for (const f of manifest.fixtures) {
    assert.ok(files.has(path.basename(f.file)), f.file);
    assert.ok(f.acceptableActions.includes(f.expectedAction.split(':')[0]!), f.id);
  }
  for (const file of [...files]
    .filter((n) => n.endsWith('.html'))
    .map((n) => path.join(CONSENT_DIR, n))
    .concat(path.join(CONSENT_DIR, 'origin2', 'index.html'))) {
    const html = readFileSync(file, 'utf8');
    assert.doesNotMatch(html, /(src|href)\s*=\s*["']?(https?:)?\/\//i, `${file}: external reference`);
    assert.doesNotMatch(html, /url\(\s*["']?(https?:)?\/\//i, `${file}: external CSS reference`);
  }
});
