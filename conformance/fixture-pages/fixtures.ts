// Fixture pages: self-contained HTML in fixtures/pages/ (the suite's own) and fixtures/consent/
// (consent and banner pages). A page that wants the pinned Inter font writes the token
// `/*@inter*/` inside a <style>; it is replaced by @font-face rules whose sources are the woff2
// files of @fontsource/inter inlined as base64, so that no fixture makes an external request and
// `html`-mode cases render the same text on any implementation.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES_DIR = path.join(REPO_ROOT, 'fixtures');
export const PAGES_DIR = path.join(FIXTURES_DIR, 'pages');
export const CONSENT_DIR = path.join(FIXTURES_DIR, 'consent');
export const FONT_TOKEN = '/*@inter*/';

const require = createRequire(import.meta.url);
let fontFaceCss: string | undefined;

/** @font-face rules for Inter 400 and 700 (latin subset), inlined from the pinned npm package. */
export function interFontFace(): string {
  if (fontFaceCss) return fontFaceCss;
  const dir = path.join(path.dirname(require.resolve('@fontsource/inter/package.json')), 'files');
  const face = (weight: number) => {
    const b64 = readFileSync(path.join(dir, `inter-latin-${weight}-normal.woff2`)).toString('base64');
    return `@font-face{font-family:"Inter";font-style:normal;font-weight:${weight};font-display:block;src:url(data:font/woff2;base64,${b64}) format("woff2")}`;
  };
  fontFaceCss = face(400) + face(700);
  return fontFaceCss;
}

export function inlineFonts(html: string): string {
  return html.includes(FONT_TOKEN) ? html.split(FONT_TOKEN).join(interFontFace()) : html;
}

const cache = new Map<string, string>();

function load(file: string): string {
  let text = cache.get(file);
  if (text === undefined) {
    text = inlineFonts(readFileSync(file, 'utf8'));
    cache.set(file, text);
  }
  return text;
}

/** fixtures/pages/<name>.html, fonts inlined. */
export function pageFixture(name: string): string {
  return load(path.join(PAGES_DIR, `${name}.html`));
}

/** fixtures/consent/<file>, fonts inlined. */
export function consentFixture(file: string): string {
  const resolved = path.resolve(CONSENT_DIR, file);
  if (!resolved.startsWith(CONSENT_DIR + path.sep)) throw new Error(`consent fixture outside fixtures/consent: ${file}`);
  return load(resolved);
}

/** An HTML document of exactly `bytes` UTF-8 bytes: a white page whose bulk is a comment filled with `fill`. */
export function sizedHtml(bytes: number, fill = 'a'): string {
  const head = '<!doctype html><html><body style="margin:0;background:#ffffff"><!--';
  const tail = '--></body></html>';
  let room = bytes - Buffer.byteLength(head + tail, 'utf8');
  if (room < 0) throw new Error(`sizedHtml: ${bytes} bytes is too small`);
  const fillBytes = Buffer.byteLength(fill, 'utf8');
  const n = Math.floor(room / fillBytes);
  room -= n * fillBytes;
  const body = fill.repeat(n) + 'a'.repeat(room);
  const out = head + body + tail;
  if (Buffer.byteLength(out, 'utf8') !== bytes) throw new Error('sizedHtml: size mismatch');
  return out;
}
