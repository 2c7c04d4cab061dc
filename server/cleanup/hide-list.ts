// Loads and checks the curated hide list (hide-list.json: the ONE data file of consent/overlay
// selectors and text patterns, each with a note). Shapes are checked at load so a bad edit fails
// at start-up, not silently in a page.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SelectorEntry {
  selector: string;
  note: string;
}
export interface PatternEntry {
  pattern: string;
  note: string;
}
export interface HideListFile {
  cmp: SelectorEntry[];
  banner: SelectorEntry[];
  overlay: SelectorEntry[];
  backdrop: SelectorEntry[];
  ads: SelectorEntry[];
  scrollLockClasses: { name: string; note: string }[];
  consentText: PatternEntry[];
  overlayText: PatternEntry[];
  rejectLabel: PatternEntry;
  acceptLabel: PatternEntry;
  notAcceptLabel: PatternEntry;
}

/** What the page side needs: selector groups and combined pattern sources. */
export interface HideList {
  cmp: string[];
  banner: string[];
  overlay: string[];
  backdrop: string[];
  ads: string[];
  scrollLockClasses: string[];
  consentText: string;
  overlayText: string;
  rejectLabel: PatternEntry;
  acceptLabel: PatternEntry;
  notAcceptLabel: PatternEntry;
}

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'hide-list.json');

function fail(msg: string): never {
  throw new Error(`server/cleanup/hide-list.json: ${msg}`);
}

function entries<T extends { note: string }>(raw: unknown, name: string, key: keyof T): T[] {
  if (!Array.isArray(raw) || raw.length === 0) fail(`${name} must be a non-empty array`);
  raw.forEach((e, i) => {
    if (!e || typeof e !== 'object') fail(`${name}[${i}] must be an object`);
    const v = (e as Record<string, unknown>)[key as string];
    if (typeof v !== 'string' || v.trim() === '') fail(`${name}[${i}].${String(key)} must be a non-empty string`);
    const note = (e as Record<string, unknown>).note;
    if (typeof note !== 'string' || note.trim().length < 5) fail(`${name}[${i}] needs a note saying why it is there`);
  });
  return raw as T[];
}

function regex(p: PatternEntry, name: string): PatternEntry {
  try {
    new RegExp(p.pattern, 'i');
  } catch (e) {
    fail(`${name} pattern does not compile: ${(e as Error).message}`);
  }
  return p;
}

export function loadHideList(): { file: HideListFile; list: HideList } {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const sel = (k: string) => entries<SelectorEntry>(raw[k], k, 'selector');
  const pat = (k: string) => entries<PatternEntry>(raw[k], k, 'pattern').map((p, i) => regex(p, `${k}[${i}]`));
  const one = (k: string) => {
    const [p] = entries<PatternEntry>([raw[k]], k, 'pattern');
    return regex(p!, k);
  };
  const data: HideListFile = {
    cmp: sel('cmp'),
    banner: sel('banner'),
    overlay: sel('overlay'),
    backdrop: sel('backdrop'),
    ads: sel('ads'),
    scrollLockClasses: entries<{ name: string; note: string }>(raw.scrollLockClasses, 'scrollLockClasses', 'name'),
    consentText: pat('consentText'),
    overlayText: pat('overlayText'),
    rejectLabel: one('rejectLabel'),
    acceptLabel: one('acceptLabel'),
    notAcceptLabel: one('notAcceptLabel'),
  };
  const join = (ps: PatternEntry[]) => ps.map((p) => `(?:${p.pattern})`).join('|');
  return {
    file: data,
    list: {
      cmp: data.cmp.map((e) => e.selector),
      banner: data.banner.map((e) => e.selector),
      overlay: data.overlay.map((e) => e.selector),
      backdrop: data.backdrop.map((e) => e.selector),
      ads: data.ads.map((e) => e.selector),
      scrollLockClasses: data.scrollLockClasses.map((e) => e.name),
      consentText: join(data.consentText),
      overlayText: join(data.overlayText),
      rejectLabel: data.rejectLabel,
      acceptLabel: data.acceptLabel,
      notAcceptLabel: data.notAcceptLabel,
    },
  };
}

export const hideList: HideList = loadHideList().list;
