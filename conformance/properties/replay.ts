// How a property's failure is told: the shrunk request as JSON (directives as the suite writes
// them: `{"$fixture": "pairwise"}` is the fixture page), the same request as a curl line (resolved:
// the page's markup, the fixture URL; the key left as $API_KEY), and the seed and fast-check path
// that replay exactly that request. Bodies too long for one line are written beside the report.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HttpRequest } from '../engine/http.ts';
import type { HttpRequestSpec } from '../model/model.ts';

/** Longer bodies go to a file (curl --data-binary @file). */
const INLINE_MAX = 1500;

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function curlLine(req: HttpRequest, bodyFile?: string): string {
  const headers = Object.entries(req.headers).map(([k, v]) => `-H ${k === 'authorization' ? `"${k}: ${v}"` : shellQuote(`${k}: ${v}`)}`);
  const data = req.body === undefined ? [] : bodyFile ? [`--data-binary @${shellQuote(bodyFile)}`] : [`--data-binary ${shellQuote(req.body)}`];
  return ['curl -sS -o out.bin -D -', `-X ${req.method}`, shellQuote(req.url), ...headers, ...data].join(' ');
}

export interface Failure {
  id: string;
  seed: number;
  path: string;
  runs: number;
  /** Runs done when it failed (the first failing one included). */
  found: number;
  shrinks: number;
  requests: HttpRequestSpec[];
  sent: HttpRequest[];
  reportDir?: string;
}

/** The replay command: the same seed and path run exactly that request again. */
export function replayCommand(f: Pick<Failure, 'id' | 'seed' | 'path'>): string {
  return `screenshot-conformance --base-url URL --api-key KEY --profile properties --grep '^${f.id.replace(/\./g, '\\.')}$' --seed ${f.seed} --replay-path '${f.path}'`;
}

export function describeFailure(f: Failure): string {
  const lines: string[] = [
    `failed on run ${f.found} of ${f.runs} with seed ${f.seed}; shrunk in ${f.shrinks} step(s) to:`,
    ...f.requests.map((r, i) => `  request${f.requests.length > 1 ? ` ${i + 1}` : ''} (JSON): ${JSON.stringify(r.body ?? r.rawBody)}`),
  ];
  f.sent.forEach((req, i) => {
    let file: string | undefined;
    if (req.body !== undefined && req.body.length > INLINE_MAX && f.reportDir) {
      const dir = path.join(f.reportDir, 'properties');
      mkdirSync(dir, { recursive: true });
      file = path.join(dir, `${f.id}${f.sent.length > 1 ? `-${i + 1}` : ''}.json`);
      writeFileSync(file, req.body);
    }
    lines.push(`  curl${f.sent.length > 1 ? ` ${i + 1}` : ''}: ${curlLine(req, file)}`);
  });
  lines.push(`  replay: ${replayCommand(f)}`, `  (seed ${f.seed}, path ${f.path}; --runs only changes how many requests are drawn before it)`);
  return lines.join('\n');
}
