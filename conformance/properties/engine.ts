// Runs the properties (list.ts) with fast-check: each property draws `runs` requests from its
// generator with the run's seed, judges each against its oracle, and when one fails shrinks it to
// the smallest request that still fails (at most SHRINK_BUDGET more exchanges). One CaseRecord per
// property, so that the console, report.json, junit.xml and index.html show a property as they show
// a case; a failure carries its shrunk request as JSON and as a curl line, the seed and the path
// that replays it (replay.ts).
import fc from 'fast-check';
import { buildRequest } from '../engine/resolve.ts';
import type { HttpClient } from '../engine/http.ts';
import type { Attachment, RunEnv } from '../engine/execute.ts';
import { sniffType } from '../engine/image.ts';
import type { Case, HttpRequestSpec, Profile } from '../model/model.ts';
import type { CaseRecord } from '../report/records.ts';
import { describeFailure } from './replay.ts';
import { PROPERTIES } from './list.ts';
import type { Property, PropertyContext, Trial } from './property.ts';
import { resolveContext } from './send.ts';

/** Runs per property when --runs is not given: the whole profile takes about 2 minutes on 2 cores against the reference. */
export const DEFAULT_RUNS = 25;
/** Exchanges spent shrinking a failure, at most: enough to strip most fields, bounded against a slow implementation. */
export const SHRINK_BUDGET = 60;

export interface PropertyOptions {
  seed: number;
  runs?: number;
  /** fast-check's path of a counterexample (with the seed it was found with): replays that one request. */
  replayPath?: string;
  grep?: string;
  /** Stop at the first failure without shrinking (the mutant runner: a kill is a kill). */
  noShrink?: boolean;
  /** Properties listed as known failures (the expectations file): not shrunk again every run. */
  known?: ReadonlySet<string>;
  /** Where the shrunk requests' bodies are written (the report directory). */
  reportDir?: string;
  workers: number;
  /** The run's profiles (a property judging a reference decision runs only with `reference`). */
  profiles?: readonly Profile[];
}

export const propertyCaseId = (p: Pick<Property, 'id'>) => `properties.${p.id}`;

/** The properties a run selects (--grep applies to `properties.<id>`). */
export function selectProperties(grep?: string, ids?: readonly string[]): Property[] {
  const re = grep ? new RegExp(grep) : null;
  return PROPERTIES.filter((p) => (!ids || ids.includes(p.id)) && (!re || re.test(propertyCaseId(p))));
}

/** A failing trial's answers as report attachments: images as they came, anything else as text. */
function attachmentsOf(t: Trial): Attachment[] {
  return (t.responses ?? []).map((res, i) => {
    const name = `response${(t.responses?.length ?? 0) > 1 ? `-${i + 1}` : ''}`;
    const type = sniffType(res.body);
    if (type) return { name, contentType: `image/${type}`, body: res.body };
    return { name: `${name}.txt`, contentType: 'text/plain', body: Buffer.from(`HTTP ${res.status}\n\n${res.body.subarray(0, 4096).toString('utf8')}`) };
  });
}

function caseOf(p: Property, request: HttpRequestSpec): Case {
  return { id: propertyCaseId(p), must: p.must, rules: p.rules, profile: 'properties', request, expect: { status: '2xx' } };
}

/**
 * Keys: the property that reads the balance gets the first key to itself (given two or more);
 * the others take turns over the rest, so that no key runs out of credits (an implementation
 * with a free allowance per key, shrinking included).
 */
function keysOf(p: Property, keys: readonly string[]): Pick<PropertyContext, 'key' | 'ownKey'> {
  if (p.readsBalance && keys.length >= 2) return { key: () => keys[0]!, ownKey: true };
  const pool = keys.length >= 2 ? keys.slice(1) : keys;
  let n = PROPERTIES.indexOf(p);
  return { key: () => pool[n++ % pool.length]!, ownKey: false };
}

/**
 * What a failure is: the names of its failing checks (and the status it got). A smaller request
 * counts as the same failure only when it shares one of them, so that shrinking does not wander
 * off to another failure (a key out of credits, a timeout) and report that instead.
 */
function signature(t: Trial): Set<string> {
  return new Set(
    t.checks
      .filter((k) => !k.pass)
      .map((k) => (k.name.endsWith('status') ? `${k.name} ${/got (\d+)/.exec(k.detail)?.[1] ?? ''}` : k.name).replace(/^.*?: (?=[a-z])/, '')),
  );
}

async function runOne(p: Property, env: RunEnv, http: HttpClient, o: PropertyOptions): Promise<CaseRecord> {
  const t0 = performance.now();
  const ctx: PropertyContext = { env, http, ...keysOf(p, env.apiKeys), declared: env.declaredFields, profiles: o.profiles };
  const skip = p.skip?.(ctx);
  if (skip) return { case: caseOf(p, { body: {} }), verdict: 'skip', reason: skip, durationMs: 0, checks: [], attachments: [] };
  const runner = await p.start(ctx);
  const runs = Math.max(1, Math.round((o.runs ?? DEFAULT_RUNS) * p.share));
  let failing: { value: unknown; trial: Trial } | undefined;
  let afterFailure = 0;
  const property = fc.asyncProperty(runner.arbitrary, async (value) => {
    if (failing && afterFailure++ >= SHRINK_BUDGET) return true; // the budget is spent: keep the smallest failure found
    const trial = await runner
      .trial(value)
      .catch((e: Error): Trial => ({ requests: [], checks: [{ name: 'exchange', pass: false, detail: `request failed: ${e.message}` }] }));
    if (trial.checks.every((k) => k.pass)) return true;
    if (failing) {
      const first = signature(failing.trial);
      if (![...signature(trial)].some((x) => first.has(x))) return true; // another failure: not a smaller one of this
    }
    failing = { value, trial };
    return false;
  });
  const details = await fc.check(property, {
    seed: o.seed,
    numRuns: runs,
    ...(o.replayPath ? { path: o.replayPath } : {}),
    ...(o.noShrink ? { endOnFailure: true } : {}),
  });
  const durationMs = performance.now() - t0;
  if (!details.failed || !failing) {
    const detail = details.failed
      ? `fast-check: ${String(details.errorInstance)}`
      : `${details.numRuns} requests drawn with seed ${o.seed}, each as its oracle says`;
    return {
      case: caseOf(p, { body: {} }),
      verdict: details.failed ? 'fail' : 'pass',
      durationMs,
      checks: [{ name: 'property', pass: !details.failed, detail }],
      attachments: [],
    };
  }
  const { trial } = failing;
  const resolve = resolveContext(ctx);
  const sent = trial.requests.map((r) => buildRequest(r, { ...resolve, apiKey: '$API_KEY' }));
  const counterexample = describeFailure({
    id: propertyCaseId(p),
    seed: o.seed,
    path: details.counterexamplePath ?? '',
    runs,
    found: details.numRuns,
    shrinks: details.numShrinks,
    requests: trial.requests,
    sent,
    reportDir: o.reportDir,
  });
  return {
    case: caseOf(p, trial.requests[0] ?? { body: {} }),
    verdict: 'fail',
    durationMs,
    checks: [...trial.checks.filter((k) => !k.pass), { name: 'smallest failing request', pass: false, detail: counterexample }],
    attachments: attachmentsOf(trial),
  };
}

/** Runs the selected properties, `workers` at a time; `done` is called as each finishes. */
export async function runProperties(
  env: RunEnv,
  http: HttpClient,
  o: PropertyOptions,
  done: (r: CaseRecord) => void = () => {},
  ids?: readonly string[],
): Promise<CaseRecord[]> {
  const list = selectProperties(o.grep, ids);
  const out: CaseRecord[] = new Array(list.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(o.workers, list.length)) }, async () => {
      while (next < list.length) {
        const i = next++;
        out[i] = await runOne(list[i]!, env, http, { ...o, noShrink: o.noShrink || o.known?.has(propertyCaseId(list[i]!)) });
        done(out[i]!);
      }
    }),
  );
  return out;
}

/** A seed for a run that was given none (printed in every report, so the run can be replayed). */
export const randomSeed = () => Math.floor(Math.random() * 2 ** 31);
