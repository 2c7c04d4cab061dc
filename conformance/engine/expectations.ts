// Known failures of one implementation, kept outside the cases (DESIGN §6, like WPT expectation
// files). Format (JSON):
//   { "implementation": "name", "failures": [ { "case": "<case id>", "reason": "why, and a link" } ] }
// A case listed here runs and is expected to fail; if it passes, the run fails ("unexpected pass")
// so that the file is kept current. Every entry needs a reason; unknown case ids are an error.
import { readFileSync } from 'node:fs';

export interface ExpectedFailure {
  case: string;
  reason: string;
}

export interface Expectations {
  implementation: string;
  failures: Map<string, ExpectedFailure>;
}

export function parseExpectations(text: string, knownIds: Set<string>, source = 'expectations'): Expectations {
  const raw = JSON.parse(text) as { implementation?: unknown; failures?: unknown };
  if (!raw || typeof raw !== 'object' || !Array.isArray(raw.failures)) throw new Error(`${source}: expected {"implementation": "...", "failures": [...]}`);
  const failures = new Map<string, ExpectedFailure>();
  for (const f of raw.failures as unknown[]) {
    const e = f as Partial<ExpectedFailure>;
    if (typeof e.case !== 'string' || typeof e.reason !== 'string' || e.reason.trim() === '')
      throw new Error(`${source}: every failure needs "case" and a non-empty "reason": ${JSON.stringify(f)}`);
    if (!knownIds.has(e.case)) throw new Error(`${source}: unknown case id ${e.case}`);
    if (failures.has(e.case)) throw new Error(`${source}: ${e.case} listed twice`);
    failures.set(e.case, { case: e.case, reason: e.reason });
  }
  return { implementation: typeof raw.implementation === 'string' ? raw.implementation : 'unnamed', failures };
}

export function loadExpectations(file: string | undefined, knownIds: Set<string>): Expectations {
  if (!file) return { implementation: 'unnamed', failures: new Map() };
  return parseExpectations(readFileSync(file, 'utf8'), knownIds, file);
}
