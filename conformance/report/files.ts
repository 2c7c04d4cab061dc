// The report files in --report DIR:
//   report.json  run info (suite version, target, profiles, Chromium version where reported,
//                pixelmatch version and options, Node version, timings, concurrency), the tally
//                by profile and by spec section, rule coverage of the run, every case with its checks;
//   junit.xml    for CI (one testsuite per profile);
//   index.html   every case with its checks; for failing image cases the expected (golden),
//                actual and diff images side by side (written to images/).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PIXELMATCH_OPTIONS, PIXELMATCH_VERSION } from '../engine/compare.ts';
import { SUITE_VERSION, type SuiteOptions } from '../engine/options.ts';
import { RULES, sectionOf } from '../model/rules.ts';
import { describeTiming, machineLoad, tally, type CaseRecord } from './records.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[ch]!);

/** What a run adds beyond its cases (engine/runner.ts Explorer: the properties' seed). */
type Extra = { explorer?: { note: string; runInfo: Record<string, unknown> } };

function reportJson(o: SuiteOptions, records: CaseRecord[], run: { durationMs: number; exitCode: number } & Extra) {
  const coverage = RULES.map((r) => {
    const cases = records.filter((c) => c.case.rules.includes(r.id));
    return {
      rule: r.id,
      source: r.source,
      cases: cases.map((c) => ({ id: c.case.id, verdict: c.verdict })),
      ran: cases.filter((c) => c.verdict !== 'skip').length,
      failed: cases.filter((c) => c.verdict === 'fail').length,
    };
  });
  return {
    runInfo: {
      suiteVersion: SUITE_VERSION,
      target: o.baseUrl,
      mcpUrl: o.mcpUrl ?? null,
      profiles: o.profiles,
      chromium: o.target?.chromium ?? null,
      targetInfo: o.target?.info ?? null,
      pixelmatch: { version: PIXELMATCH_VERSION, options: PIXELMATCH_OPTIONS, thresholdPerCase: true },
      fixtureOrigins: o.fixtureOrigins,
      canary: o.canary,
      isolatedNetwork: o.isolatedNetwork,
      expectations: o.expectations ?? null,
      updateGolden: o.updateGolden,
      concurrency: o.workers,
      ...run.explorer?.runInfo,
      node: process.version,
      machine: machineLoad(),
      finishedAt: new Date().toISOString(),
      durationMs: Math.round(run.durationMs),
      exitCode: run.exitCode,
    },
    summary: tally(records),
    coverage,
    results: records.map((r) => ({
      id: r.case.id,
      profile: r.case.profile,
      section: sectionOf(r.case.rules),
      rules: r.case.rules,
      must: r.case.must,
      verdict: r.verdict,
      ...(r.reason ? { reason: r.reason } : {}),
      durationMs: Math.round(r.durationMs),
      ...(r.timing ? { timing: { ...r.timing, responseMs: r.timing.responseMs.map(Math.round) } } : {}),
      checks: r.checks,
      attachments: r.attachments.map((a) => a.name),
    })),
  };
}

function junit(records: CaseRecord[]): string {
  const byProfile = new Map<string, CaseRecord[]>();
  for (const r of records) byProfile.set(r.case.profile, [...(byProfile.get(r.case.profile) ?? []), r]);
  const suites = [...byProfile].map(([profile, rs]) => {
    const failures = rs.filter((r) => r.verdict === 'fail' || r.verdict === 'unexpected-pass').length;
    const skipped = rs.filter((r) => r.verdict === 'skip').length;
    const time = rs.reduce((s, r) => s + r.durationMs, 0) / 1000;
    const cases = rs.map((r) => {
      const head = `    <testcase classname="${esc(`${profile}.${sectionOf(r.case.rules)}`)}" name="${esc(r.case.id)}" time="${(r.durationMs / 1000).toFixed(3)}"`;
      if (r.verdict === 'skip') return `${head}><skipped message="${esc(r.reason ?? '')}"/></testcase>`;
      if (r.verdict === 'fail')
        return `${head}><failure message="${esc(r.case.must)}">${esc([...r.checks.filter((k) => !k.pass).map((k) => `${k.name}: ${k.detail}`), ...(r.timing ? [describeTiming(r.timing)] : [])].join('\n'))}</failure></testcase>`;
      if (r.verdict === 'unexpected-pass') return `${head}><failure message="unexpected pass: listed as a known failure (${esc(r.reason ?? '')})"/></testcase>`;
      return `${head}/>`;
    });
    return `  <testsuite name="${esc(profile)}" tests="${rs.length}" failures="${failures}" skipped="${skipped}" time="${time.toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="screenshot-conformance">\n${suites.join('\n')}\n</testsuites>\n`;
}

const COLOURS = { pass: '#1a7f37', fail: '#cf222e', skip: '#6e7781', 'expected-failure': '#9a6700', 'unexpected-pass': '#cf222e' } as const;

function html(o: SuiteOptions, records: CaseRecord[], imgDir: string, exitCode: number, note?: string): string {
  const t = tally(records);
  const order = { fail: 0, 'unexpected-pass': 1, 'expected-failure': 2, pass: 3, skip: 4 } as const;
  const rows = [...records]
    .sort((a, b) => order[a.verdict] - order[b.verdict] || a.case.id.localeCompare(b.case.id))
    .map((r) => {
      const showImages = r.verdict === 'fail' || r.verdict === 'unexpected-pass' || r.verdict === 'expected-failure';
      const figures = (showImages ? r.attachments.filter((a) => a.contentType.startsWith('image/')) : []).map((a) => {
        const file = `${r.case.id.replace(/[^A-Za-z0-9._-]/g, '_')}-${a.name}.${a.contentType.split('/')[1] ?? 'png'}`;
        writeFileSync(path.join(imgDir, file), a.body);
        return `<figure><figcaption>${esc(a.name)}</figcaption><a href="images/${esc(file)}"><img src="images/${esc(file)}" alt="${esc(a.name)}"></a></figure>`;
      });
      const checks = r.checks.map((k) => `<li class="${k.pass ? 'ok' : 'bad'}">${k.pass ? '✓' : '✗'} <b>${esc(k.name)}</b>: ${esc(k.detail)}</li>`).join('');
      return `<section id="${esc(r.case.id)}"><h3><span class="v" style="background:${COLOURS[r.verdict]}">${r.verdict}</span> ${esc(r.case.id)} <small>${r.case.profile}, ${esc(sectionOf(r.case.rules))}, ${Math.round(r.durationMs)} ms</small></h3>
<p>${esc(r.case.must)}</p><p class="rules">${r.case.rules.map(esc).join(' · ')}</p>${r.reason ? `<p><i>${esc(r.reason)}</i></p>` : ''}${r.timing ? `<p class="rules">${esc(describeTiming(r.timing))}</p>` : ''}
${checks ? `<ul>${checks}</ul>` : ''}${figures.length ? `<div class="imgs">${figures.join('')}</div>` : ''}</section>`;
    });
  const sections = Object.entries(t.bySection)
    .map(
      ([s, c]) =>
        `<tr><td>${esc(s)}</td><td>${c.pass}</td><td>${c.fail}</td><td>${c.skip}</td><td>${c['expected-failure']}</td><td>${c['unexpected-pass']}</td></tr>`,
    )
    .join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Screenshot conformance report</title><style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1f2328}h3{margin:16px 0 4px}small{color:#6e7781;font-weight:400}
.v{color:#fff;border-radius:4px;padding:1px 6px;font-size:12px}.rules{color:#6e7781;font-size:12px}
ul{margin:4px 0;padding-left:20px}li{white-space:pre-wrap}li.bad{color:#cf222e}li.ok{color:#1a7f37}table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left}
.imgs{display:flex;gap:12px;flex-wrap:wrap}figure{margin:0}img{max-width:420px;max-height:420px;border:1px solid #d0d7de;background:repeating-conic-gradient(#eee 0 25%,#fff 0 50%) 0 0/16px 16px}
section{border-top:1px solid #d0d7de}</style></head><body>
<h1>Screenshot conformance report</h1>
<p>Suite ${SUITE_VERSION} against <code>${esc(o.baseUrl)}</code>, profiles ${esc(o.profiles.join(', '))}${note ? `; ${esc(note)}` : ''}${o.target?.chromium ? `, Chromium ${esc(o.target.chromium)}` : ''}. Exit status: <b>${exitCode}</b>.</p>
<p>${t.pass} passed, ${t.fail} failed, ${t.skip} skipped, ${t.expectedFailure} expected failures, ${t.unexpectedPass} unexpected passes, of ${t.total}.</p>
<table><tr><th>section</th><th>passed</th><th>failed</th><th>skipped</th><th>expected failures</th><th>unexpected passes</th></tr>${sections}</table>
${rows.join('\n')}
</body></html>`;
}

export function writeReports(o: SuiteOptions, records: CaseRecord[], run: { durationMs: number; exitCode: number } & Extra): void {
  const imgDir = path.join(o.reportDir, 'images');
  rmSync(imgDir, { recursive: true, force: true }); // no stale images from an earlier run
  mkdirSync(imgDir, { recursive: true });
  writeFileSync(path.join(o.reportDir, 'report.json'), JSON.stringify(reportJson(o, records, run), null, 2));
  writeFileSync(path.join(o.reportDir, 'junit.xml'), junit(records));
  writeFileSync(path.join(o.reportDir, 'index.html'), html(o, records, imgDir, run.exitCode, run.explorer?.note));
}
