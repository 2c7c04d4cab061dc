// HTML report (index.html): every case with its verdict and checks; for each failing image case
// the expected (golden), actual and diff images side by side. Images are written next to it.
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { readOptionsFromEnv, SUITE_VERSION } from '../options.ts';
import { tally, toRecord, type CaseRecord } from './collect.ts';

const esc = (s: string) => s.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]!);
const COLOURS = { pass: '#1a7f37', fail: '#cf222e', skip: '#6e7781', 'expected-failure': '#9a6700', 'unexpected-pass': '#cf222e' } as const;

export default class HtmlReporter implements Reporter {
  private records: CaseRecord[] = [];

  onBegin() {
    rmSync(path.join(readOptionsFromEnv().reportDir, 'images'), { recursive: true, force: true }); // no stale images from an earlier run
  }

  onTestEnd(test: TestCase, result: TestResult) {
    this.records.push(toRecord(test, result));
  }

  onEnd(result: FullResult) {
    const o = readOptionsFromEnv();
    const imgDir = path.join(o.reportDir, 'images');
    mkdirSync(imgDir, { recursive: true });
    const t = tally(this.records);
    const order = { fail: 0, 'unexpected-pass': 1, 'expected-failure': 2, pass: 3, skip: 4 } as const;
    const rows = [...this.records].sort((a, b) => order[a.verdict] - order[b.verdict] || a.id.localeCompare(b.id)).map((r) => {
      const imgs = r.attachments.filter((a) => a.contentType.startsWith('image/') && (r.verdict === 'fail' || r.verdict === 'unexpected-pass' || r.verdict === 'expected-failure'));
      const figures = imgs.map((a) => {
        const ext = a.contentType.split('/')[1] ?? 'png';
        const file = `${r.id.replace(/[^A-Za-z0-9._-]/g, '_')}-${a.name}.${ext}`;
        if (a.path) copyFileSync(a.path, path.join(imgDir, file));
        else if (a.body) writeFileSync(path.join(imgDir, file), a.body);
        return `<figure><figcaption>${esc(a.name)}</figcaption><a href="images/${esc(file)}"><img src="images/${esc(file)}" alt="${esc(a.name)}"></a></figure>`;
      });
      const checks = r.checks.map((k) => `<li class="${k.pass ? 'ok' : 'bad'}">${k.pass ? '✓' : '✗'} <b>${esc(k.name)}</b>: ${esc(k.detail)}</li>`).join('');
      return `<section id="${esc(r.id)}"><h3><span class="v" style="background:${COLOURS[r.verdict]}">${r.verdict}</span> ${esc(r.id)} <small>${r.profile}, ${Math.round(r.durationMs)} ms</small></h3>
<p>${esc(r.must)}</p><p class="rules">${r.rules.map(esc).join(' · ')}</p>${r.reason ? `<p><i>${esc(r.reason)}</i></p>` : ''}
${checks ? `<ul>${checks}</ul>` : ''}${!checks && r.error ? `<pre>${esc(r.error)}</pre>` : ''}${figures.length ? `<div class="imgs">${figures.join('')}</div>` : ''}</section>`;
    });
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>Screenshot conformance report</title><style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1f2328}h3{margin:16px 0 4px}small{color:#6e7781;font-weight:400}
.v{color:#fff;border-radius:4px;padding:1px 6px;font-size:12px}.rules{color:#6e7781;font-size:12px}
ul{margin:4px 0;padding-left:20px}li.bad{color:#cf222e}li.ok{color:#1a7f37}
.imgs{display:flex;gap:12px;flex-wrap:wrap}figure{margin:0}img{max-width:420px;max-height:420px;border:1px solid #d0d7de;background:repeating-conic-gradient(#eee 0 25%,#fff 0 50%) 0 0/16px 16px}
section{border-top:1px solid #d0d7de}</style></head><body>
<h1>Screenshot conformance report</h1>
<p>Suite ${SUITE_VERSION} against <code>${esc(o.baseUrl)}</code>, profiles ${esc(o.profiles.join(', '))}${o.target?.chromium ? `, Chromium ${esc(o.target.chromium)}` : ''}. Status: <b>${result.status}</b>.</p>
<p>${t.pass} passed, ${t.fail} failed, ${t.skip} skipped, ${t.expectedFailure} expected failures, ${t.unexpectedPass} unexpected passes, of ${t.total}.</p>
${rows.join('\n')}
</body></html>`;
    writeFileSync(path.join(o.reportDir, 'index.html'), html);
  }

  printsToStdio() {
    return false;
  }
}
