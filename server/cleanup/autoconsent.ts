// Builds the autoconsent page script (spec §4.1 rule 3, step 1: reject on consent-management
// platforms) and reads its per-frame state. The script is @duckduckgo/autoconsent's ESM bundle
// (shipped in dist/, outside the package exports, so located via the package's main entry), the
// bundled compact rules (offline), and our driver (page/driver.js), concatenated into one IIFE.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Frame } from 'puppeteer-core';
import { hideList } from './hide-list.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Opt-out-only configuration. Nothing here can accept: see page/driver.js for the click guard. */
export const AUTOCONSENT_CONFIG = {
  enabled: true,
  autoAction: 'optOut', // never 'optIn'
  disabledCmps: [] as string[],
  enablePrehide: false, // prehide would leave opacity:0 residue; our own hide pass covers the capture
  enableCosmeticRules: true, // cosmetic rules only hide
  enableGeneratedRules: true,
  detectRetries: 20, // background loop while the page loads; finish() stops it (quickPass)
  isMainWorld: true, // eval snippets run inline; no message bridge needed
  prehideTimeout: 2000,
  enableHeuristicDetection: false, // text-pattern reporting only, costs an innerText per retry
  enablePopupMutationObserver: false,
  visualTest: false,
  heuristicMode: 'reject', // NEVER 'tier1'/'tier2': those click acknowledge/accept when there is no reject
  heuristicPopupSearchTimeout: 40,
  performanceLoggingEnabled: false,
  logs: { lifecycle: false, rulesteps: false, detectionsteps: false, evals: false, errors: false, messages: false, waits: false },
} as const;

/** Name of the binding (page.exposeFunction) through which frames report opt-out results. */
export const REPORT_BINDING = '__scCleanupReport';

/** An opt-out result as reported by a frame (also kept in FrameConsentState.results). */
export interface OptOutEvent {
  type: 'optOutResult';
  top: boolean;
  url: string;
  cmp: string;
  result: boolean;
  /** Clicks and API calls the opt-out made; 0 means the rule only hid the popup. */
  actions: number;
}

export interface FrameConsentState {
  top: boolean;
  url: string;
  lifecycle: string;
  detected: string[];
  popups: string[];
  results: { cmp: string; result: boolean; actions: number }[];
  done: { cmp: string; cosmetic: boolean; clicks: number } | null;
  handlingCmp: string | null;
  running: boolean;
  blocked: string[];
}

let cached: { full: string; noBackground: string } | null = null;

function build(noBackground: boolean): string {
  const require = createRequire(import.meta.url);
  const pkgDir = path.dirname(require.resolve('@duckduckgo/autoconsent')); // .../dist
  const esm = readFileSync(path.join(pkgDir, 'autoconsent.esm.js'), 'utf8');
  const cut = esm.lastIndexOf('\nexport {');
  if (cut < 0) throw new Error('autoconsent bundle layout changed: no trailing export block');
  const body = esm.slice(0, cut);
  const rulesPath = path.join(pkgDir, '..', 'rules', 'compact-rules.json');
  const rules = readFileSync(rulesPath, 'utf8');
  const driver = readFileSync(path.join(here, 'page', 'driver.js'), 'utf8');
  const options = {
    config: AUTOCONSENT_CONFIG,
    acceptPattern: hideList.acceptLabel.pattern,
    notAcceptPattern: hideList.notAcceptLabel.pattern,
    reportBinding: REPORT_BINDING,
    noBackground,
  };
  return [
    '(() => {',
    "if (Object.prototype.hasOwnProperty.call(window, '__scAutoconsent')) return;",
    body,
    driver,
    `scAutoconsentDriver({ AutoConsent, filterCompactRules }, ${rules.trim()}, ${JSON.stringify(options)});`,
    '})();',
  ].join('\n');
}

/**
 * The page script. `full` is registered for new documents (it searches in the background while the
 * page loads); `noBackground` is injected into an already-loaded document (html mode) and only acts
 * when finish() calls quickPass.
 */
export function autoconsentScripts(): { full: string; noBackground: string } {
  if (!cached) cached = { full: build(false), noBackground: build(true) };
  return cached;
}

/** frame.evaluate that never throws (detached frames throw synchronously in puppeteer). */
async function safeEvaluate<T>(frame: Frame, fn: () => Promise<T>): Promise<T | null> {
  try {
    if (frame.detached) return null;
    return await fn();
  } catch {
    return null;
  }
}

/** True if the driver is present in this frame's current document. */
export async function hasDriver(frame: Frame): Promise<boolean> {
  const r = await safeEvaluate(frame, () => frame.evaluate(() => Object.prototype.hasOwnProperty.call(window, '__scAutoconsent')));
  return r === true;
}

export async function quickPass(frame: Frame, budgetMs: number): Promise<FrameConsentState | null> {
  return safeEvaluate(frame, () =>
    frame.evaluate((ms: number) => {
      const api = (window as unknown as { __scAutoconsent?: { quickPass(ms: number): Promise<FrameConsentState> } }).__scAutoconsent;
      return api ? api.quickPass(ms) : null;
    }, budgetMs),
  );
}

export async function stopDriver(frame: Frame): Promise<FrameConsentState | null> {
  return safeEvaluate(frame, () =>
    frame.evaluate(() => {
      const api = (window as unknown as { __scAutoconsent?: { stop(): FrameConsentState } }).__scAutoconsent;
      return api ? api.stop() : null;
    }),
  );
}

/** Injects the driver into a document that was not created with it (html mode). */
export async function injectDriver(frame: Frame): Promise<void> {
  await safeEvaluate(frame, () => frame.evaluate(autoconsentScripts().noBackground));
}
