// The generic case executor: resolves a case's request, sends it, judges the response (verdict.ts),
// compares goldens, follows relations and further steps, and counts canary connections. It is used
// by the Playwright spec (suite.spec.ts) and, in-process, by the mutant runner.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startCanary, type Canary } from './canary.ts';
import { compareImages } from './compare.ts';
import { encodePng, readPng, decodeImage, sniffType } from './image.ts';
import type { Case, Check, Expectation, Need, RequestSpec } from './model.ts';
import type { HttpClient, HttpResponse } from './http.ts';
import { buildRequest, type ResolveContext } from './resolve.ts';
import { judge, statusMatches } from './verdict.ts';

export interface RunEnv {
  baseUrl: string;
  apiKeys: string[];
  freshKey?: string;
  mcpUrl?: string;
  /** A never-used key for the MCP billing checks (not shared with the REST billing case). */
  mcpFreshKey?: string;
  fixtureOrigins: string[];
  /** Canary listeners on this host are reachable by the implementation (it runs here). */
  canary: boolean;
  /** The implementation runs in a network namespace: off-machine targets are safe to send. */
  isolatedNetwork: boolean;
  goldenDir: string;
  updateGolden: boolean;
}

export interface Attachment {
  name: string;
  contentType: string;
  body: Buffer;
}

export interface CaseOutcome {
  pass: boolean;
  checks: Check[];
  attachments: Attachment[];
}

/** Why a case (or an MCP check, given as its needs) cannot run in this environment, or null. */
export function unmetNeed(c: Pick<Case, 'needs'>, env: RunEnv): string | null {
  const has: Record<Need, boolean> = {
    fixtures: env.fixtureOrigins.length >= 1,
    secondOrigin: env.fixtureOrigins.length >= 2,
    canary: env.canary,
    freshKey: !!env.freshKey,
    mcp: !!env.mcpUrl,
    mcpFreshKey: !!env.mcpFreshKey,
    isolatedNetwork: env.isolatedNetwork,
  };
  const why: Record<Need, string> = {
    fixtures: 'needs the fixture server (--fixtures-port or --fixtures-url)',
    secondOrigin: 'needs a second fixture origin',
    canary: 'needs canary listeners on the implementation host (--canary)',
    freshKey: 'needs a never-used key (--fresh-key)',
    mcp: 'needs the MCP endpoint (--mcp-url)',
    mcpFreshKey: 'needs a never-used key of its own for the MCP billing checks (--mcp-fresh-key)',
    isolatedNetwork: 'needs the implementation in an isolated network namespace (--isolated-network)',
  };
  for (const n of c.needs ?? []) if (!has[n]) return why[n];
  return null;
}

/** The key a case uses: spread over the given keys so that per-key limits are not hit by the suite itself. */
export function keyFor(caseId: string, keys: string[]): string {
  let h = 0;
  for (const ch of caseId) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return keys[h % keys.length]!;
}

export function goldenPath(env: RunEnv, c: Case): string {
  return path.join(env.goldenDir, c.expect.golden?.name ?? `${c.id}.png`);
}

async function send(http: HttpClient, spec: RequestSpec, ctx: ResolveContext): Promise<HttpResponse> {
  return http(buildRequest(spec, ctx));
}

function failureAttachment(res: HttpResponse, name: string): Attachment {
  const type = sniffType(res.body);
  if (type) return { name, contentType: `image/${type}`, body: res.body };
  return { name: `${name}.txt`, contentType: 'text/plain', body: Buffer.from(`HTTP ${res.status}\n${Object.entries(res.headers).map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${res.body.subarray(0, 4096).toString('utf8')}`) };
}

async function relationChecks(c: Case, e: Expectation, res: HttpResponse, http: HttpClient, ctx: ResolveContext): Promise<{ checks: Check[]; other?: HttpResponse }> {
  const rel = e.relation!;
  const other = await send(http, rel.request, ctx);
  const checks: Check[] = [];
  if (rel.expect) checks.push(...(await judge({ ...rel.expect, status: rel.expect.status ?? 200 }, other)).checks.map((k) => ({ ...k, name: `second request: ${k.name}` })));
  const label = `relation ${rel.relation}`;
  if (rel.relation === 'bytes-less' || rel.relation === 'bytes-greater') {
    const pass = rel.relation === 'bytes-less' ? res.body.length < other.body.length : res.body.length > other.body.length;
    checks.push({ name: label, pass, detail: `${res.body.length} bytes vs ${other.body.length} bytes of the second request` });
    return { checks, other };
  }
  if (!sniffType(res.body) || !sniffType(other.body)) {
    checks.push({ name: label, pass: false, detail: 'both responses must be images' });
    return { checks, other };
  }
  const a = await decodeImage(res.body);
  const b = await decodeImage(other.body);
  const cmp = compareImages(a, b, { threshold: 0.1, maxDiffPixels: Infinity, maxDiffPixelRatio: 1 });
  const ratio = Number.isNaN(cmp.diffPixels) ? 1 : cmp.diffPixels / cmp.total;
  const pass = rel.relation === 'pixels-differ' ? ratio > (rel.minDiffRatio ?? 0.01) : ratio <= (rel.maxDiffRatio ?? 0.001);
  checks.push({ name: label, pass, detail: `${(ratio * 100).toFixed(2)}% of pixels differ from the second request (${cmp.detail})` });
  void c;
  return { checks, other };
}

export async function executeCase(c: Case, env: RunEnv, http: HttpClient): Promise<CaseOutcome> {
  const checks: Check[] = [];
  const attachments: Attachment[] = [];
  let canary: Canary | undefined;
  if (c.needs?.includes('canary') || c.expect.canaryConnections !== undefined) canary = await startCanary();
  try {
    const ctx: ResolveContext = {
      baseUrl: env.baseUrl,
      apiKey: keyFor(c.id, env.apiKeys),
      freshKey: env.freshKey,
      fixtureOrigins: env.fixtureOrigins,
      canaryPort: canary?.port,
      nonce: Math.random().toString(36).slice(2, 10),
    };
    const responses: HttpResponse[] = [];
    const steps = [{ request: c.request, expect: c.expect }, ...(c.then ?? [])];
    for (const [i, step] of steps.entries()) {
      const prefix = steps.length > 1 ? `step ${i + 1}: ` : '';
      const res = await send(http, step.request, ctx);
      responses.push(res);
      const { checks: stepChecks, image } = await judge(step.expect, res, responses);
      checks.push(...stepChecks.map((k) => ({ ...k, name: prefix + k.name })));
      const stepFailed = stepChecks.some((k) => !k.pass);

      const g = step.expect.golden;
      if (g && image && i === 0) {
        const file = goldenPath(env, c);
        const actualPng = encodePng(image);
        if (env.updateGolden) {
          mkdirSync(path.dirname(file), { recursive: true });
          if (!stepFailed) writeFileSync(file, actualPng);
          checks.push({ name: 'golden', pass: !stepFailed, detail: stepFailed ? 'not updated: the case fails its other checks' : `updated ${path.basename(file)}` });
        } else if (!existsSync(file)) {
          checks.push({ name: 'golden', pass: false, detail: `no golden ${path.relative(process.cwd(), file)} (run with --update-golden against a trusted implementation, then look at it)` });
          attachments.push({ name: 'actual', contentType: 'image/png', body: actualPng });
        } else {
          const expected = readPng(readFileSync(file));
          const cmp = compareImages(expected, image, g);
          checks.push({ name: 'golden', pass: cmp.pass, detail: cmp.detail });
          if (!cmp.pass) {
            attachments.push({ name: 'expected', contentType: 'image/png', body: readFileSync(file) });
            attachments.push({ name: 'actual', contentType: 'image/png', body: actualPng });
            if (cmp.diff) attachments.push({ name: 'diff', contentType: 'image/png', body: encodePng(cmp.diff) });
          }
        }
      }
      if (step.expect.relation && statusMatches(step.expect.status, res.status)) {
        const r = await relationChecks(c, step.expect, res, http, ctx);
        checks.push(...r.checks.map((k) => ({ ...k, name: prefix + k.name })));
        if (r.checks.some((k) => !k.pass) && r.other) attachments.push(failureAttachment(r.other, 'second-response'));
      }
      if (stepFailed && !attachments.some((a) => a.name === 'actual')) attachments.push(failureAttachment(res, steps.length > 1 ? `response-step-${i + 1}` : 'response'));
    }
    if (canary) {
      await new Promise((r) => setTimeout(r, 300)); // late connections still count
      const n = canary.connections();
      const max = c.expect.canaryConnections ?? 0;
      checks.push({ name: 'canary connections', pass: n <= max, detail: `${n} connection(s) to the canary on port ${canary.port}, at most ${max}` });
    }
  } catch (err) {
    checks.push({ name: 'exchange', pass: false, detail: `request failed: ${err instanceof Error ? err.message : String(err)}` });
  } finally {
    await canary?.close();
  }
  return { pass: checks.length > 0 && checks.every((k) => k.pass), checks, attachments };
}
