// The image built from the Dockerfile itself, as users build it (`docker build .`: the build
// context filtered by .dockerignore, HEALTHCHECK kept: docker format), on the base given as
// BASE_IMAGE (scripts/image/local-base.sh's stand-in where no registry is reachable). Then a
// rebuild after a code change, which must reuse every layer above the code (the browser's most).
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { must, podman } from './engine.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const IMAGE = 'localhost/screenshot-service:image-test';

interface Step {
  n: number;
  text: string;
  /** Taken from podman's layer cache. */
  cached: boolean;
}

interface Built {
  seconds: number;
  steps: Step[];
}

const fromCache = (b: Built) => `${b.steps.filter((s) => s.cached).length}/${b.steps.length}`;

async function build(context: string, tag: string, base: string): Promise<Built> {
  const t0 = Date.now();
  const r = await podman(
    ['build', '--format', 'docker', '--network', 'host', '--build-arg', `BASE_IMAGE=${base}`, '-t', tag, '-f', path.join(context, 'Dockerfile'), context],
    { timeoutMs: 1_800_000 },
  );
  const seconds = (Date.now() - t0) / 1000;
  if (r.code !== 0) throw new Error(`podman build exited ${r.code}:\n${(r.stdout + r.stderr).slice(-4000)}`);
  // "STEP 5/17: RUN ...", then "--> Using cache <id>" when the layer came from the cache.
  const steps: Step[] = [];
  for (const l of r.stdout.split('\n')) {
    const m = /^STEP (\d+)\/\d+: (.*)$/.exec(l);
    if (m) steps.push({ n: Number(m[1]), text: m[2]!, cached: false });
    else if (/^--> Using cache/.test(l) && steps.length) steps[steps.length - 1]!.cached = true;
  }
  return { seconds, steps };
}

export async function buildImage(base: string): Promise<string> {
  const b = await build(ROOT, IMAGE, base);
  const size = Number(await must(['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
  const baseSize = Number(await must(['image', 'inspect', '--format', '{{.Size}}', base]));
  return `${b.seconds.toFixed(0)} s (${fromCache(b)} steps from the cache) on ${base}; image ${(size / 1e6).toFixed(0)} MB (base ${(baseSize / 1e6).toFixed(0)} MB)`;
}

export async function rebuildAfterCodeChange(base: string): Promise<string> {
  // The build context as the Dockerfile sees it (what .dockerignore lets in), one file changed.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'image-context-'));
  try {
    const allowed = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('!'))
      .map((l) => l.slice(1));
    for (const p of ['Dockerfile', '.dockerignore', ...allowed]) cpSync(path.join(ROOT, p), path.join(dir, p), { recursive: true });
    appendFileSync(path.join(dir, 'server/main.ts'), `\n// a code change (${Date.now()})\n`);
    const tag = `${IMAGE}-rebuild`;
    const b = await build(dir, tag, base);
    await podman(['rmi', tag]);
    const step = (re: RegExp) => b.steps.find((s) => re.test(s.text))?.n ?? -1;
    const [browser, deps, code] = [step(/^RUN bash scripts\/setup-browser\.sh/), step(/^RUN npm ci/), step(/^COPY server /)];
    assert.ok(browser > 0 && deps > 0 && code > 0, 'the Dockerfile installs the browser, the dependencies and copies the code');
    assert.ok(browser < deps && deps < code, `the browser layer first, then node_modules, then the code (steps ${browser}, ${deps}, ${code})`);
    const rebuilt = b.steps.filter((s) => s.n > 1 && s.n < code && !s.cached).map((s) => `${s.n} ${s.text.slice(0, 40)}`);
    assert.deepEqual(rebuilt, [], "every step before the code's from the cache");
    return `browser (step ${browser}), node_modules (step ${deps}), then the code (step ${code}): after a change in server/, ${fromCache(b)} steps from the cache, rebuilt in ${b.seconds.toFixed(1)} s`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
