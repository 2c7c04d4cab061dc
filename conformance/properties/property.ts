// What a property is (list.ts, relations.ts): a generator of requests and the trial that sends one
// and judges what came back, with what every answer keeps whatever was asked (spec §2.4, §7).
import type fc from 'fast-check';
import type { RunEnv } from '../engine/execute.ts';
import type { Observed } from '../engine/exchange.ts';
import type { HttpClient } from '../engine/http.ts';
import type { Check, HttpRequestSpec, Profile } from '../model/model.ts';
import { snippet } from '../engine/verdict.ts';

export interface PropertyContext {
  env: RunEnv;
  http: HttpClient;
  /** The key of this property's next request. */
  key(): string;
  /** No other property sends this property's key (balances read across its requests are its own). */
  ownKey: boolean;
  declared?: ReadonlySet<string>;
  /** The profiles of the run: a property judging a reference decision runs only with `reference`. */
  profiles?: readonly Profile[];
}

/** What one request drawn by a property did: what was sent, what came back, and the checks. */
export interface Trial {
  requests: HttpRequestSpec[];
  checks: Check[];
  /** The answers, in the order of `requests` (shown with a failure: the pictures in index.html). */
  responses?: Observed[];
}

export interface Runner<T> {
  arbitrary: fc.Arbitrary<T>;
  trial(value: T): Promise<Trial>;
}

export interface Property {
  id: string;
  /** One sentence, "The service MUST ...". */
  must: string;
  rules: string[];
  /** This property's runs: --runs times this (its requests cost more or less than one capture). */
  share: number;
  /** It reads the balance across its requests: it gets a key no other property sends. */
  readsBalance?: boolean;
  /** Why it cannot run against this implementation, or null. */
  skip?(ctx: PropertyContext): string | null;
  start(ctx: PropertyContext): Promise<Runner<any>>;
}

/** spec §2.4, §7: what every answer keeps, whatever was asked. */
export function everyAnswer(res: Observed, label = ''): Check[] {
  const checks: Check[] = [];
  const json = res.json as { error?: unknown; message?: unknown } | undefined;
  const timeout = res.status === 504 && json?.error === 'render_timeout';
  checks.push({
    name: `${label}no 5xx but 504 render_timeout`,
    pass: res.status < 500 || timeout,
    detail: `status ${res.status}${res.status >= 500 ? `: ${snippet(res.body)}` : ''}`,
  });
  if (res.status >= 400) {
    const ok = !!json && typeof json === 'object' && !Array.isArray(json) && typeof json.error === 'string' && typeof json.message === 'string';
    checks.push({ name: `${label}failure body is JSON {error, message}`, pass: ok, detail: ok ? `error=${String(json!.error)}` : `got ${snippet(res.body)}` });
  }
  return checks;
}
