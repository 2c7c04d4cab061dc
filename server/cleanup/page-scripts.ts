// The clean-up's in-page scripts (page/*.js): plain JavaScript, read as text once and evaluated in
// the page, so the TypeScript loader never touches them. Each file defines functions that the
// files after it may call; a script is the files it needs, in that order.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pageDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'page');

export type PageFile = 'scan.js' | 'generic.js' | 'find.js' | 'dom-cleanup.js' | 'sniff.js' | 'driver.js' | 'late-watch.js' | 'settle.js';

/** The files' text, joined in the order given. */
export function pageScript(...files: PageFile[]): string {
  return files.map((f) => readFileSync(path.join(pageDir, f), 'utf8')).join('\n');
}
