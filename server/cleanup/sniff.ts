// Pre-check before autoconsent (spec §4.1 rule 3 step 1), so that a page without a banner pays
// little: injecting the autoconsent bundle and running its pass costs ~30 ms per frame, and most
// pages have no consent popup. This derives, from the very rules autoconsent would run in a frame,
// what must be there for any of them to detect something (an element, a JavaScript global, a URL),
// adds what autoconsent's reject-only heuristic looks at (a fixed layer or dialog with consent or
// reject wording), and asks the page once (page/sniff.js). No reason: autoconsent is skipped there.
import { decodeRules } from '@duckduckgo/autoconsent';
import type { Frame } from 'puppeteer-core';
import { rulesFor } from './autoconsent.ts';
import { hideList } from './hide-list.ts';
import { pageScript } from './page-scripts.ts';
import { needsOf, type SelectorNeeds } from './selectors.ts';

const source = pageScript('scan.js', 'generic.js', 'find.js', 'settle.js', 'sniff.js');
const sourceWithWatch = pageScript('scan.js', 'generic.js', 'find.js', 'settle.js', 'sniff.js', 'late-watch.js');

/**
 * autoconsent's rules written as code (lib/cmps/*.ts, the bundle's `dynamicCMPs`), with what their
 * detectCmp() needs. Keyed by class name; a test checks this list against the installed bundle.
 */
export const DYNAMIC_CMP_SNIFFS: Record<string, { selectors?: string[]; globals?: string[]; urlPatterns?: string[]; layerText?: string }> = {
  TrustArcTop: { selectors: ['#truste-show-consent', '#truste-consent-track'] },
  Cookiebot: { globals: ['Cookiebot'] },
  SourcePoint: {
    urlPatterns: [
      '^https?://ccpa-(?:notice|pm)\\.sp-prod\\.net/',
      '^[a-z]+://[^/]+/(?:index|privacy-manager/index|ccpa_pm/index|us_pm/index)\\.html\\?(?:[^#]*&)?(?:message_id|requestUUID|consentUUID)=',
    ],
  },
  ConsentManager: { selectors: ['#cmpbox'], globals: ['__cmp'] },
  Evidon: { selectors: ['#_evidon_banner'] },
  Onetrust: { selectors: ['#onetrust-banner-sdk', '#onetrust-pc-sdk'] },
  Klaro: { selectors: ['.klaro > .cookie-notice', '.klaro > .cookie-modal'] },
  Uniconsent: { selectors: ['.unic .unic-box', '.unic .unic-bar', '.unic .unic-modal'] },
  Conversant: { selectors: ['.cmp-root .cmp-receptacle'] },
  Tiktok: { selectors: ['tiktok-cookie-banner'] },
  Tumblr: { selectors: ['#cmp-app-container'] },
  Admiral: { selectors: ['div > div[class*=Card] > div[class*=Frame] > div[class*=Pills] > button[class*=Pills__StyledPill]'], layerText: '\\bAdmiral\\b' },
};

/** Eval snippets that detect a CMP on their own (no DOM step beside them), as the global they read. */
const EVAL_GLOBALS: Record<string, string> = {
  EVAL_GDPR_LEGAL_COOKIE_DETECT_CMP: 'GDPR_LC',
  EVAL_COOKIEBOT_1: 'Cookiebot',
  EVAL_CONSENTMANAGER_1: '__cmp',
  EVAL_USERCENTRICS_API_0: 'UC_UI',
};

type Step = Record<string, unknown>;

/** Selectors of which at least one must exist for this step to hold, or null if unknown. */
function stepNeeds(step: Step): { selectors: string[]; globals: string[] } | null {
  if (step.negated) return null;
  const sel = (step.exists ?? step.visible) as string | string[] | undefined;
  if (sel !== undefined && step.check !== 'none') {
    const first = Array.isArray(sel) ? sel[0] : sel;
    if (typeof first === 'string' && !/^(xpath|text|aria|pierce)\//.test(first)) return { selectors: [first], globals: [] };
    return null;
  }
  if (typeof step.eval === 'string' && EVAL_GLOBALS[step.eval]) return { selectors: [], globals: [EVAL_GLOBALS[step.eval]!] };
  if (Array.isArray(step.any)) {
    const alts = (step.any as Step[]).map(stepNeeds);
    if (alts.some((a) => a === null)) return null;
    return { selectors: alts.flatMap((a) => a!.selectors), globals: alts.flatMap((a) => a!.globals) };
  }
  return null;
}

export interface SniffSpec {
  /** The rules' necessary selectors, with what each needs to be present (selectors.ts). */
  needs: SelectorNeeds[];
  globals: string[];
  urlPatterns: string[];
  layers: boolean;
  layerText: string;
  /** Rules whose detection this pre-check cannot see (they would be missed). */
  unsniffable: string[];
}

const specCache = new Map<string, SniffSpec>();

export function sniffSpec(url: string, isTop: boolean): SniffSpec {
  const rulesJson = rulesFor(url, isTop);
  const key = `${isTop}:${rulesJson.length}:${rulesJson.slice(0, 64)}:${isTop ? '' : url}`;
  const hit = specCache.get(key);
  if (hit) return hit;
  const rules = decodeRules(JSON.parse(rulesJson)) as { name: string; detectCmp?: Step[] }[];
  const selectors = new Set<string>();
  const globals = new Set<string>();
  const unsniffable: string[] = [];
  for (const rule of rules) {
    let needs: ReturnType<typeof stepNeeds> = null;
    for (const step of rule.detectCmp ?? []) {
      needs = stepNeeds(step);
      if (needs) break;
    }
    if (!needs) {
      unsniffable.push(rule.name);
      continue;
    }
    needs.selectors.forEach((s) => selectors.add(s));
    needs.globals.forEach((g) => globals.add(g));
  }
  const urlPatterns: string[] = [];
  const layerText = [hideList.consentText, hideList.rejectLabel.pattern];
  for (const d of Object.values(DYNAMIC_CMP_SNIFFS)) {
    d.selectors?.forEach((s) => selectors.add(s));
    d.globals?.forEach((g) => globals.add(g));
    if (d.urlPatterns) urlPatterns.push(...d.urlPatterns);
    if (d.layerText) layerText.push(d.layerText);
  }
  const spec: SniffSpec = {
    needs: needsOf([...selectors]),
    globals: [...globals],
    urlPatterns,
    layers: isTop, // autoconsent runs its heuristic in the top document only
    layerText: layerText.map((p) => `(?:${p})`).join('|'),
    unsniffable,
  };
  if (specCache.size > 200) specCache.clear();
  specCache.set(key, spec);
  return spec;
}

export interface Survey {
  /** Why autoconsent could act in this frame, or null. */
  reason: string | null;
  /** Elements the DOM clean-up would hide (top document, when reason is null), else -1. */
  candidates: number;
}

/**
 * One evaluate per frame: the pre-check, plus (top document, `cfgJson` given) the DOM clean-up's
 * own search. A frame that cannot be asked counts as having a reason (the full pass decides).
 * `watch`: the same evaluate first installs the last look's watch (last-look.ts), so that what
 * the page changes after this survey is seen (the early look in index.ts).
 */
export async function survey(frame: Frame, isTop: boolean, cfgJson: string | null, watch = false): Promise<Survey> {
  try {
    if (frame.detached) return { reason: null, candidates: 0 };
    const spec = sniffSpec(frame.url(), isTop);
    const { unsniffable: _, ...pageSpec } = spec;
    const expr = watch
      ? `(() => {\n${sourceWithWatch}\nscLateWatchInstall();\nreturn scSurvey(${JSON.stringify(pageSpec)}, ${cfgJson ?? 'null'});\n})()`
      : `(() => {\n${source}\nreturn scSurvey(${JSON.stringify(pageSpec)}, ${cfgJson ?? 'null'});\n})()`;
    const r = (await frame.evaluate(expr)) as Partial<Survey> | null;
    if (!r || typeof r !== 'object') return { reason: 'error', candidates: -1 };
    return { reason: r.reason == null ? null : String(r.reason).slice(0, 200), candidates: typeof r.candidates === 'number' ? r.candidates : -1 };
  } catch {
    return { reason: 'error', candidates: -1 };
  }
}
