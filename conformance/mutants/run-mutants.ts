// The suite's own test: every deliberately broken implementation (mutants.ts) must be rejected.
//   node --import tsx conformance/mutants/run-mutants.ts [--only ID[,ID]] [--no-cli] [--baseline-from report.json]
// Starts a fresh reference server with the fixture server, then:
//   1. baseline: the union of the mutants' case subsets must PASS against the unbroken server
//      (otherwise a "kill" would mean nothing); --baseline-from takes the verdicts of a full run of
//      the same code against a fresh reference server (its report.json: what npm test has just
//      run) and runs only the relevant cases that report lacks;
//   2. each mutant: a proxy in front of the server breaking one rule; its case subset runs through
//      the suite's executor (the same code the runner uses), in-process, two at a time;
//      the mutant is killed when at least one case fails;
//   3. one mutant also through the whole command line (conformance/cli/bin.ts, a child process), which
//      must exit non-zero.
// Prints the kill rate; exits non-zero if the baseline fails or any mutant survives.
// Honest scope: each mutant runs only the cases relevant to the rule it breaks (its `cases`), not
// the whole suite; the full suite runs once against the reference server in run-against-reference.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { selectCases } from '../cases/index.ts';
import { executeCase, unmetNeed, type RunEnv } from '../engine/execute.ts';
import { fetchDeclaredFields } from '../engine/declared-fields.ts';
import { REPO_ROOT } from '../fixture-pages/fixtures.ts';
import { undiciClient } from '../engine/http.ts';
import type { Case } from '../model/model.ts';
import { startReferenceTarget } from '../reference/run-against-reference.ts';
import { MUTANTS, selects, type Mutant } from './mutants.ts';
import { startProxy } from './proxy.ts';
import { runIfEntry } from '../cli/entry.ts';
import { propertyCaseId, runProperties } from '../properties/engine.ts';

/** The seed of the properties each mutant runs (also npm test's, so that its full run is their baseline). */
export const MUTANT_SEED = 20251127;

/** The properties `ids` against `env`, with the fixed seed, stopping at the first failure: id -> why it failed ('' when it passed). */
async function runMutantProperties(ids: readonly string[], env: RunEnv): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const records = await runProperties(
    env,
    undiciClient,
    { seed: MUTANT_SEED, workers: 2, noShrink: true, profiles: ['reference', 'extensions', 'properties'] },
    undefined,
    ids,
  );
  return new Map(
    records.map((r) => [
      r.case.id,
      r.verdict === 'fail'
        ? r.checks
            .filter((k) => !k.pass)
            .map((k) => `${k.name}: ${k.detail.split('\n')[0]}`)
            .join('; ')
        : '',
    ]),
  );
}

async function pool<T, R>(items: T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

async function runCases(cases: Case[], env: RunEnv): Promise<Array<{ c: Case; pass: boolean; why: string }>> {
  return pool(cases, 2, async (c) => {
    const o = await executeCase(c, env, undiciClient);
    const bad = o.checks.filter((k) => !k.pass);
    return { c, pass: o.pass, why: bad.map((k) => `${k.name}: ${k.detail}`).join('; ') };
  });
}

function subset(m: Mutant, all: Case[], env: RunEnv): Case[] {
  return all.filter((c) => selects(m, c) && unmetNeed(c, env) === null);
}

async function main(argv: string[]): Promise<number> {
  const { values: v } = parseArgs({
    args: argv,
    options: { only: { type: 'string' }, 'no-cli': { type: 'boolean', default: false }, 'baseline-from': { type: 'string' } },
  });
  const only = v.only ? v.only.split(',') : null;
  const viaCli = !v['no-cli'];
  const baselineFile = v['baseline-from'] ?? null;
  const report = baselineFile
    ? (JSON.parse(readFileSync(baselineFile, 'utf8')) as {
        runInfo?: { properties?: { seed?: number; defaultRuns?: boolean } };
        results: Array<{ id: string; verdict: string }>;
      })
    : null;
  // A property's verdict in that report is a baseline only when it was drawn with this seed and the default runs.
  const sameDraw = report?.runInfo?.properties?.seed === MUTANT_SEED && report.runInfo.properties.defaultRuns === true;
  const earlier = new Map<string, string>((report?.results ?? []).filter((r) => sameDraw || !r.id.startsWith('properties.')).map((r) => [r.id, r.verdict]));
  const mutants = MUTANTS.filter((m) => !only || only.includes(m.id));
  const target = await startReferenceTarget({ keys: 20 });
  process.env.MUTANT_FALLBACK_KEY = target.apiKeys[0];
  const env: RunEnv = {
    baseUrl: target.baseUrl,
    apiKeys: target.apiKeys,
    fixtureOrigins: target.fixtureOrigins,
    canary: true,
    isolatedNetwork: false,
    goldenDir: path.join(REPO_ROOT, 'golden'),
    updateGolden: false,
    declaredFields: await fetchDeclaredFields(target.baseUrl, target.apiKeys[0]),
  };
  const all = selectCases(['reference', 'extensions']);
  let failed = false;
  try {
    // 1. baseline
    const union = all.filter((c) => mutants.some((m) => selects(m, c)) && unmetNeed(c, env) === null);
    const known = union
      .filter((c) => earlier.has(c.id))
      .map((c) => ({ c, pass: earlier.get(c.id) === 'pass', why: `${earlier.get(c.id)} in ${baselineFile}` }));
    const base = [
      ...known,
      ...(await runCases(
        union.filter((c) => !earlier.has(c.id)),
        env,
      )),
    ];
    const baseFail = base.filter((r) => !r.pass);
    console.log(
      `baseline: ${base.length - baseFail.length}/${base.length} relevant cases pass against the reference server${known.length ? ` (${known.length} of them in the full run of ${baselineFile})` : ''}`,
    );
    for (const r of baseFail) console.log(`  ✗ ${r.c.id}: ${r.why}`);
    if (baseFail.length) failed = true;
    const baseBad = new Set(baseFail.map((r) => r.c.id));
    const propIds = [...new Set(mutants.flatMap((m) => m.properties ?? []))];
    const propKnown = propIds.filter((id) => earlier.has(propertyCaseId({ id })));
    const propBase = await runMutantProperties(
      propIds.filter((id) => !propKnown.includes(id)),
      env,
    );
    for (const id of propKnown.map((x) => propertyCaseId({ id: x })))
      propBase.set(id, earlier.get(id) === 'pass' ? '' : `${earlier.get(id)} in ${baselineFile}`);
    for (const [id, why] of propBase) {
      console.log(`baseline: ${id} ${why ? `FAILS against the reference server: ${why}` : 'passes against the reference server'} (seed ${MUTANT_SEED})`);
      if (why) {
        failed = true;
        baseBad.add(id);
      }
    }

    // 2. mutants
    const rows: Array<{ m: Mutant; run: number; killedBy: string[]; meaningful: boolean }> = [];
    for (const m of mutants) {
      const cases = subset(m, all, env);
      const proxy = await startProxy(target.baseUrl, m.hooks);
      try {
        const results = [
          ...(await runCases(cases, { ...env, baseUrl: proxy.url })),
          ...[...(await runMutantProperties(m.properties ?? [], { ...env, baseUrl: proxy.url }))].map(([id, why]) => ({
            c: { id } as Case,
            pass: why === '',
            why,
          })),
        ];
        const killedBy = results.filter((r) => !r.pass && !baseBad.has(r.c.id)).map((r) => r.c.id);
        const props = (m.properties ?? []).map((id) => propertyCaseId({ id }));
        rows.push({ m, run: results.length, killedBy, meaningful: cases.some((c) => !baseBad.has(c.id)) || props.some((id) => !baseBad.has(id)) });
        const first = results.find((r) => !r.pass && !baseBad.has(r.c.id));
        console.log(
          `${killedBy.length ? 'KILLED  ' : 'SURVIVED'} ${m.id.padEnd(32)} breaks ${m.breaks.padEnd(24)} ${killedBy.length}/${results.length} cases fail${first ? ` (e.g. ${first.c.id}: ${first.why.slice(0, 160)})` : ''}`,
        );
      } finally {
        await proxy.close();
      }
    }
    const killed = rows.filter((r) => r.killedBy.length > 0).length;
    console.log(
      `\nmutant kill rate: ${killed}/${rows.length} (${((100 * killed) / Math.max(1, rows.length)).toFixed(0)}%); cases run per mutant: ${rows.map((r) => r.run).join(', ')}`,
    );
    const survivors = rows.filter((r) => r.killedBy.length === 0);
    if (survivors.length) {
      failed = true;
      console.log(`survivors: ${survivors.map((r) => r.m.id + (r.meaningful ? '' : ' (its cases fail on the reference server too)')).join(', ')}`);
    }

    // 3. one mutant through the whole command line: the installed entry must exit non-zero
    if (viaCli && mutants.length) {
      const m = mutants[0]!;
      const proxy = await startProxy(target.baseUrl, m.hooks);
      const reportDir = mkdtempSync(path.join(os.tmpdir(), 'conformance-mutant-'));
      try {
        const args = [
          '--base-url',
          proxy.url,
          '--api-key',
          target.apiKeys.join(','),
          '--fixtures-url',
          target.fixtureOrigins.join(','),
          ...('tag' in m.cases ? ['--tag', m.cases.tag] : ['--grep', `^(${[...m.cases.ids].map((id) => id.replace(/\./g, '\\.')).join('|')})$`]),
          '--workers',
          '1',
          '--report',
          reportDir,
        ];
        const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'conformance', 'cli', 'bin.ts'), ...args], {
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
        console.log(
          `CLI run against mutant ${m.id}: exit status ${code} (${code !== 0 ? 'rejected, as it must be' : 'ACCEPTED: the runner does not fail the run'})`,
        );
        if (code === 0) failed = true;
      } finally {
        await proxy.close();
        rmSync(reportDir, { recursive: true, force: true });
      }
    }
  } finally {
    await target.close();
  }
  return failed ? 1 : 0;
}

runIfEntry(import.meta.url, main);
