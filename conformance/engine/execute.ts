// The generic case executor: resolves each request of a case, sends it (exchange.ts: HTTP or
// MCP), judges what came back (verdict.ts), compares goldens, follows relations and further
// steps, and counts canary connections. Used by the runner (runner.ts) and, in-process, by the
// mutant runner and the self-tests. It knows nothing about individual cases.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startCanary, type Canary } from './canary.ts';
import { compareImages } from './compare.ts';
import { undeclaredField } from './declared-fields.ts';
import { exchange, type Observed } from './exchange.ts';
import type { HttpClient } from './http.ts';
import { decodeImage, encodePng, readPng, sniffType, type DecodedImage } from './image.ts';
import { McpSessions, SkipCase } from './mcp-client.ts';
import type { Case, Check, Expectation, GoldenSpec, Need } from '../model/model.ts';
import type { ResolveContext } from './resolve.ts';
import { judge, snippet, statusMatches } from './verdict.ts';

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
  /** MCP client sessions shared by the cases of a run (else each case opens and closes its own). */
  mcp?: McpSessions;
  /** Request fields the implementation's OpenAPI document declares (read when a case names `fields`). */
  declaredFields?: ReadonlySet<string>;
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
  /** How long the implementation took to answer each exchange of the case, in order (ms). */
  responseMs: number[];
  /** Set when the case could not run against this implementation (see mcp/client.ts SkipCase). */
  skipped?: string;
}

const NEED_REASONS: Record<Need, string> = {
  fixtures: 'needs the fixture server (--fixtures-port or --fixtures-url)',
  secondOrigin: 'needs a second fixture origin',
  canary: 'needs canary listeners on the implementation host (--canary)',
  freshKey: 'needs a never-used key (--fresh-key)',
  mcp: 'needs the MCP endpoint (--mcp-url)',
  mcpFreshKey: 'needs a never-used key of its own for the MCP billing checks (--mcp-fresh-key)',
  isolatedNetwork: 'needs the implementation in an isolated network namespace (--isolated-network)',
};

/** Why a case cannot run in this environment, or null. */
export function unmetNeed(c: Pick<Case, 'needs' | 'fields'>, env: RunEnv): string | null {
  const has: Record<Need, boolean> = {
    fixtures: env.fixtureOrigins.length >= 1,
    secondOrigin: env.fixtureOrigins.length >= 2,
    canary: env.canary,
    freshKey: !!env.freshKey,
    mcp: !!env.mcpUrl,
    mcpFreshKey: !!env.mcpFreshKey,
    isolatedNetwork: env.isolatedNetwork,
  };
  for (const n of c.needs ?? []) if (!has[n]) return NEED_REASONS[n];
  return undeclaredField(c.fields, env.declaredFields);
}

/** The key a case uses: spread over the given keys so that per-key limits are not hit by the suite itself. */
export function keyFor(caseId: string, keys: string[]): string {
  let h = 0;
  for (const ch of caseId) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return keys[h % keys.length]!;
}

export function goldenPath(env: Pick<RunEnv, 'goldenDir'>, c: Pick<Case, 'id'>, g: GoldenSpec): string {
  return path.join(env.goldenDir, g.name ?? `${c.id}.png`);
}

function failureAttachment(res: Observed, name: string): Attachment {
  const type = sniffType(res.body);
  if (type) return { name, contentType: `image/${type}`, body: res.body };
  const text = res.text !== undefined ? `${res.text}\n\n${JSON.stringify(res.json, null, 2)}` : res.body.subarray(0, 4096).toString('utf8');
  return {
    name: `${name}.txt`,
    contentType: 'text/plain',
    body: Buffer.from(
      `HTTP ${res.status}\n${Object.entries(res.headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}\n\n${text}`,
    ),
  };
}

async function relationChecks(
  e: Expectation,
  res: Observed,
  env: RunEnv,
  http: HttpClient,
  ctx: ResolveContext,
): Promise<{ checks: Check[]; other?: Observed }> {
  const rel = e.relation!;
  const other = await exchange(rel.request, ctx, http, env.mcp);
  const checks: Check[] = [];
  if (rel.expect)
    checks.push(...(await judge({ ...rel.expect, status: rel.expect.status ?? 200 }, other)).checks.map((k) => ({ ...k, name: `second request: ${k.name}` })));
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
  const cmp = compareImages(await decodeImage(res.body), await decodeImage(other.body), { threshold: 0.1, maxDiffPixels: Infinity, maxDiffPixelRatio: 1 });
  const ratio = Number.isNaN(cmp.diffPixels) ? 1 : cmp.diffPixels / cmp.total;
  const pass = rel.relation === 'pixels-differ' ? ratio > (rel.minDiffRatio ?? 0.01) : ratio <= (rel.maxDiffRatio ?? 0.001);
  checks.push({ name: label, pass, detail: `${(ratio * 100).toFixed(2)}% of pixels differ from the second request (${cmp.detail})` });
  return { checks, other };
}

function goldenChecks(c: Case, g: GoldenSpec, image: DecodedImage, stepFailed: boolean, env: RunEnv, attachments: Attachment[]): Check {
  const file = goldenPath(env, c, g);
  const actualPng = encodePng(image);
  if (env.updateGolden) {
    mkdirSync(path.dirname(file), { recursive: true });
    if (!stepFailed) writeFileSync(file, actualPng);
    return { name: 'golden', pass: !stepFailed, detail: stepFailed ? 'not updated: the case fails its other checks' : `updated ${path.basename(file)}` };
  }
  if (!existsSync(file)) {
    attachments.push({ name: 'actual', contentType: 'image/png', body: actualPng });
    return {
      name: 'golden',
      pass: false,
      detail: `no golden ${path.basename(file)} in ${env.goldenDir} (run with --update-golden against a trusted implementation, then look at it)`,
    };
  }
  const cmp = compareImages(readPng(readFileSync(file)), image, g);
  if (!cmp.pass) {
    attachments.push({ name: 'expected', contentType: 'image/png', body: readFileSync(file) });
    attachments.push({ name: 'actual', contentType: 'image/png', body: actualPng });
    if (cmp.diff) attachments.push({ name: 'diff', contentType: 'image/png', body: encodePng(cmp.diff) });
  }
  return { name: 'golden', pass: cmp.pass, detail: cmp.detail };
}

export async function executeCase(c: Case, env: RunEnv, http: HttpClient): Promise<CaseOutcome> {
  const checks: Check[] = [];
  const attachments: Attachment[] = [];
  const responseMs: number[] = [];
  let canary: Canary | undefined;
  const ownMcp = !env.mcp && env.mcpUrl ? new McpSessions(env.mcpUrl) : undefined;
  const runEnv = ownMcp ? { ...env, mcp: ownMcp } : env;
  try {
    if (c.needs?.includes('canary') || c.expect.canaryConnections !== undefined) canary = await startCanary();
    const ctx: ResolveContext = {
      baseUrl: env.baseUrl,
      mcpUrl: env.mcpUrl,
      apiKey: keyFor(c.id, env.apiKeys),
      freshKey: env.freshKey,
      mcpFreshKey: env.mcpFreshKey,
      fixtureOrigins: env.fixtureOrigins,
      canaryPort: canary?.port,
      nonce: Math.random().toString(36).slice(2, 10),
    };
    const responses: Observed[] = [];
    const steps = [{ request: c.request, expect: c.expect }, ...(c.then ?? [])];
    for (const [i, step] of steps.entries()) {
      const prefix = step.request.label ? `${step.request.label}: ` : steps.length > 1 ? `step ${i + 1}: ` : '';
      const res = await exchange(step.request, ctx, http, runEnv.mcp);
      responseMs.push(res.durationMs);
      responses.push(res);
      const { checks: stepChecks, image } = await judge(step.expect, res, responses);
      const stepFailed = stepChecks.some((k) => !k.pass);
      if (step.expect.golden && image) stepChecks.push(goldenChecks(c, step.expect.golden, image, stepFailed, env, attachments));
      checks.push(...stepChecks.map((k) => ({ ...k, name: prefix + k.name })));
      if (step.expect.relation && statusMatches(step.expect.status, res.status)) {
        const r = await relationChecks(step.expect, res, runEnv, http, ctx);
        if (r.other) responseMs.push(r.other.durationMs);
        checks.push(...r.checks.map((k) => ({ ...k, name: prefix + k.name })));
        if (r.checks.some((k) => !k.pass) && r.other) attachments.push(failureAttachment(r.other, 'second-response'));
      }
      if (stepChecks.some((k) => !k.pass) && !attachments.some((a) => a.name === 'actual'))
        attachments.push(failureAttachment(res, steps.length > 1 ? `response-step-${i + 1}` : 'response'));
    }
    if (canary) {
      await new Promise((r) => setTimeout(r, 300)); // late connections still count
      const n = canary.connections();
      const max = c.expect.canaryConnections ?? 0;
      checks.push({ name: 'canary connections', pass: n <= max, detail: `${n} connection(s) to the canary on port ${canary.port}, at most ${max}` });
    }
  } catch (err) {
    if (err instanceof SkipCase) return { pass: true, checks, attachments, responseMs, skipped: err.message };
    checks.push({ name: 'exchange', pass: false, detail: `request failed: ${snippet(err instanceof Error ? err.message : String(err), 400)}` });
  } finally {
    await canary?.close();
    await ownMcp?.close();
  }
  return { pass: checks.length > 0 && checks.every((k) => k.pass), checks, attachments, responseMs };
}
