// The autoconsent step of the clean-up (spec §4.1 rule 3, step 1: reject on consent-management
// platforms). Builds the expression injected into each frame: @duckduckgo/autoconsent's ESM bundle
// (shipped in dist/, outside the package exports, so located via the package's main entry), the
// bundled compact rules that apply to the frame's URL (offline), and our driver (page/driver.js).
// Injected when the clean-up runs rather than into every new document: a page without a banner
// then pays one pass instead of a 400 KB script per document (measured: ~50 ms per load).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { filterCompactRules } from '@duckduckgo/autoconsent';
import type { Frame } from 'puppeteer-core';
import { hideList } from './hide-list.ts';
import { pageScript } from './page-scripts.ts';

/**
 * Opt-out-only configuration (autoconsent's Config). Nothing here can accept; page/driver.js adds
 * a click guard on top. See node_modules/@duckduckgo/autoconsent/lib/types.ts for each field.
 */
export const AUTOCONSENT_CONFIG = {
  enabled: true,
  autoAction: 'optOut', // never 'optIn'
  disabledCmps: [] as string[],
  enablePrehide: false, // would leave opacity:0 residue; our own hide pass covers the capture
  enableCosmeticRules: true, // cosmetic rules only hide (reported as hidden, not rejected)
  enableGeneratedRules: true, // the site-specific auto_* rules, parsed only for matching URLs
  detectRetries: 0, // no background search: the driver's quickPass() is the one pass
  isMainWorld: true, // eval snippets run inline: no message bridge needed
  prehideTimeout: 2000, // unused (prehide off)
  enableHeuristicDetection: false, // text-pattern reporting only; would cost an innerText per pass
  enablePopupMutationObserver: false,
  visualTest: false,
  heuristicMode: 'reject', // NEVER 'tier1'/'tier2': they click acknowledge/accept when there is no reject
  heuristicPopupSearchTimeout: 40, // ms cap of the heuristic's DOM walk on large pages
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

interface CompactRules {
  v: number;
  s: string[];
  r: unknown[][];
  index: {
    genericRuleRange: [number, number];
    frameRuleRange: [number, number];
    specificRuleRange: [number, number];
    genericStringEnd: number;
    frameStringEnd: number;
  };
}

interface Parts {
  /** Script text up to the rules argument. */
  head: string;
  /** Script text after the rules argument. */
  tail: string;
  rules: CompactRules;
  /** Top-frame rule set when no site-specific rule matches (the usual case), as JSON. */
  genericJson: string;
  /** The site-specific rules' URL patterns. */
  patterns: RegExp[];
}

let parts: Parts | null = null;

function load(): Parts {
  if (parts) return parts;
  const require = createRequire(import.meta.url);
  const pkgDir = path.dirname(require.resolve('@duckduckgo/autoconsent')); // .../dist
  const esm = readFileSync(path.join(pkgDir, 'autoconsent.esm.js'), 'utf8');
  const cut = esm.lastIndexOf('\nexport {');
  if (cut < 0) throw new Error('autoconsent bundle layout changed: no trailing export block');
  const rules = JSON.parse(readFileSync(path.join(pkgDir, '..', 'rules', 'compact-rules.json'), 'utf8')) as CompactRules;
  const driver = pageScript('driver.js');
  const options = {
    config: AUTOCONSENT_CONFIG,
    acceptPattern: hideList.acceptLabel.pattern,
    notAcceptPattern: hideList.notAcceptLabel.pattern,
    reportBinding: REPORT_BINDING,
  };
  const { genericRuleRange, specificRuleRange, genericStringEnd } = rules.index;
  const patterns = rules.r.slice(...specificRuleRange).flatMap((rule) => {
    try {
      return rule[3] ? [new RegExp(String(rule[3]))] : [];
    } catch {
      return [];
    }
  });
  parts = {
    head: [
      '(() => {',
      "if (!Object.prototype.hasOwnProperty.call(window, '__scAutoconsent')) {",
      esm.slice(0, cut),
      driver,
      'scAutoconsentDriver({ AutoConsent }, ',
    ].join('\n'),
    tail: `, ${JSON.stringify(options)});\n}\nreturn window.__scAutoconsent.quickPass(__BUDGET__);\n})()`,
    rules,
    genericJson: JSON.stringify({ v: rules.v, s: rules.s.slice(0, genericStringEnd), r: rules.r.slice(...genericRuleRange) }),
    patterns,
  };
  return parts;
}

/**
 * The compact rules that apply to a document: for a frame, the frame rules whose URL pattern (if
 * any) matches; for the top document, the generic rules plus the site-specific rules for its URL.
 * Chosen here, in Node, so that the page parses only what applies (JSON.parse of a string).
 */
export function rulesFor(url: string, isTop: boolean): string {
  const p = load();
  if (isTop && !p.patterns.some((re) => re.test(url))) return p.genericJson;
  return JSON.stringify(filterCompactRules(p.rules as never, { url, mainFrame: isTop }));
}

/**
 * The expression injected into a frame: defines the driver once, then runs quickPass(budget) and
 * evaluates to the frame's state.
 */
export function driverExpression(url: string, isTop: boolean, budgetMs: number): string {
  const p = load();
  return p.head + JSON.stringify(rulesFor(url, isTop)) + p.tail.replace('__BUDGET__', String(Math.max(0, Math.round(budgetMs))));
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

const strings = (v: unknown, max = 20): string[] => (Array.isArray(v) ? v.slice(0, max).map((x) => String(x).slice(0, 120)) : []);

/**
 * A frame's answer, checked: the page owns the main world and could answer anything (a page may
 * even define window.__scAutoconsent itself), so nothing of it is trusted beyond its shape.
 */
export function toFrameState(raw: unknown): FrameConsentState | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  const results = Array.isArray(r.results)
    ? r.results.slice(0, 10).flatMap((x) => {
        if (!x || typeof x !== 'object') return [];
        const o = x as Record<string, unknown>;
        return [{ cmp: String(o.cmp ?? '').slice(0, 120), result: o.result === true, actions: Number(o.actions) || 0 }];
      })
    : [];
  const done = r.done && typeof r.done === 'object' ? (r.done as Record<string, unknown>) : null;
  return {
    top: r.top === true,
    url: String(r.url ?? '').slice(0, 500),
    lifecycle: String(r.lifecycle ?? '').slice(0, 40),
    detected: strings(r.detected),
    popups: strings(r.popups),
    results,
    done: done ? { cmp: String(done.cmp ?? '').slice(0, 120), cosmetic: done.cosmetic === true, clicks: Number(done.clicks) || 0 } : null,
    handlingCmp: r.handlingCmp == null ? null : String(r.handlingCmp).slice(0, 120),
    running: r.running === true,
    blocked: strings(r.blocked),
  };
}

/** Injects the driver if the frame lacks it and runs one bounded pass (see page/driver.js). */
export async function injectAndPass(frame: Frame, isTop: boolean, budgetMs: number): Promise<FrameConsentState | null> {
  return toFrameState(await safeEvaluate(frame, () => frame.evaluate(driverExpression(frame.url(), isTop, budgetMs))));
}

export async function stopDriver(frame: Frame): Promise<FrameConsentState | null> {
  const raw = await safeEvaluate(frame, () =>
    frame.evaluate(() => {
      const api = (window as unknown as { __scAutoconsent?: { stop(): unknown } }).__scAutoconsent;
      return api ? api.stop() : null;
    }),
  );
  return toFrameState(raw);
}
