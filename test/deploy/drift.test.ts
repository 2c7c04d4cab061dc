// The platform files (Dockerfile, compose.yaml, deploy/kubernetes, deploy/haproxy) are built and
// run in a container engine by the image tests (test/image, `npm run test:image`, minutes); this
// file is their quick check, and covers what those cannot run (the HPA and its metric, compose's
// HAProxy config with Docker's DNS): the variables they set are the ones server/config.ts reads
// (and the README documents), their ports, probes and paths are the server's, compose's HAProxy
// config is the one template's output (what the cluster tests run), the image installs the browser
// with the same setup script, and the autoscaler's metric is one the server exports. The worker
// services (compose's `worker`, worker-deployment.yaml) run `npm run worker` with the API's store
// and keys, apart from the balancer, and the example KEDA ScaledObject scales them by the very
// query of the pending-items gauge. A change on either side that breaks the other fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { CHROMIUM_CANDIDATES } from '../../server/config.ts';
import { createMetrics } from '../../server/metrics.ts';
import type { PoolEvents } from '../../server/metrics.ts';
import { PENDING_ITEMS_SQL } from '../../server/batches/sql.ts';
import { CHECKS, COMPOSE, COMPOSE_REPLICA_SLOTS, ERRORS_DIR, renderHaproxyConfig } from '../../scripts/cluster/haproxy.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (p: string) => readFileSync(path.join(ROOT, p), 'utf8');
const yaml = (p: string) => parse(read(p));
const RENDER_BUDGET_S = 20; // spec §8; RENDER_BUDGET_MS can only lower it

/** Every variable server/config.ts reads (as it reads them: env.NAME, or (env, 'NAME')). */
function configVariables(): Set<string> {
  const src = read('server/config.ts');
  const names = new Set<string>();
  for (const m of src.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
  for (const m of src.matchAll(/\(env, '([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]!);
  return names;
}

function assertKnownVariables(where: string, names: string[]): void {
  const known = configVariables();
  const readme = read('docs/configuration.md');
  assert.ok(names.length > 0, `${where} sets variables`);
  for (const n of names) {
    assert.ok(known.has(n), `${where} sets ${n}, which server/config.ts does not read`);
    assert.ok(readme.includes(`| \`${n}\``), `${where} sets ${n}: the configuration table (docs/configuration.md) must document it`);
  }
}

/** GET routes of the server (server/http/app.ts). */
/** The GET paths of the route table in server/http/app.ts (rows `{ path: '/x', method: 'GET', ... }`). */
function getRoutes(): Set<string> {
  return new Set([...read('server/http/app.ts').matchAll(/path: '([^']+)',\s*method: 'GET'/g)].map((m) => m[1]!));
}

const seconds = (s: string) => {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(String(s).trim());
  assert.ok(m, `a duration: ${s}`);
  return Number(m[1]) / (m[2] === 'ms' ? 1000 : 1);
};

test('deploy/haproxy/compose.cfg is the one template rendered for compose (npm run deploy:render)', () => {
  assert.equal(read('deploy/haproxy/compose.cfg'), renderHaproxyConfig(COMPOSE));
  const cfg = read('deploy/haproxy/compose.cfg');
  assert.match(cfg, /http-check send meth GET uri \/readyz/);
  assert.ok(getRoutes().has('/readyz'), 'the health check path is a route');
  assert.match(cfg, /balance leastconn/);
  assert.match(cfg, /retry-on conn-failure 503/);
  assert.ok(existsSync(path.join(ERRORS_DIR, 'replica-lost.http')), 'the errorfile ships beside the template');
  const lost = readFileSync(path.join(ERRORS_DIR, 'replica-lost.http'), 'utf8');
  const body = JSON.parse(lost.split('\r\n\r\n')[1]!);
  assert.equal(body.error, 'render_failed', "HAProxy answers in the catalogue's shape");
  assert.match(lost, /^HTTP\/1\.1 500 /, "with the catalogue's status for render_failed");
});

test(
  'the template renders to configurations HAProxy accepts (compose and cluster shapes)',
  { skip: existsSync(process.env.HAPROXY_PATH || '/usr/sbin/haproxy') ? false : 'no haproxy here (scripts/setup-haproxy.sh)' },
  () => {
    const bin = process.env.HAPROXY_PATH || '/usr/sbin/haproxy';
    const dir = mkdtempSync(path.join(os.tmpdir(), 'haproxy-check-'));
    try {
      const shapes = {
        compose: renderHaproxyConfig({ ...COMPOSE, errors_dir: ERRORS_DIR, runtime_socket: path.join(dir, 's1.sock') }),
        cluster: renderHaproxyConfig({
          ...COMPOSE,
          ...CHECKS,
          bind: '127.0.0.1:1',
          stats_bind: '127.0.0.1:2',
          errors_dir: ERRORS_DIR,
          runtime_socket: path.join(dir, 's2.sock'),
          server_options: '',
          resolvers: '',
          servers: '    server r1 127.0.0.1:3\n    server r2 127.0.0.1:4',
        }),
      };
      for (const [name, text] of Object.entries(shapes)) {
        const file = path.join(dir, `${name}.cfg`);
        writeFileSync(file, text);
        const out = execFileSync(bin, ['-c', '-f', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        assert.match(out, /Configuration file is valid/, `${name}: ${out}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test("compose.yaml: the topology of npm run cluster, the template's ports, known variables", () => {
  const c = yaml('compose.yaml');
  const always = Object.keys(c.services).filter((s) => !c.services[s].profiles);
  assert.deepEqual(always.sort(), ['haproxy', 'postgres', 'screenshot', 'worker']);
  assert.deepEqual(c.services.jaeger?.profiles, ['tracing'], 'the traces backend runs only when asked for (docs/operations.md, "Traces")');
  const app = c.services.screenshot;
  const env = app.environment as Record<string, string>;
  assertKnownVariables('compose.yaml', Object.keys(env));
  assert.ok(env.DATABASE_URL.startsWith('postgres://') && env.DATABASE_URL.includes('@postgres:'), 'the replicas share the postgres service');
  const [, service, port] = /server-template \S+ 1-\d+ ([\w-]+):(\d+)/.exec(COMPOSE.servers) ?? [];
  assert.equal(service, 'screenshot', 'HAProxy finds the replicas by their service name');
  assert.equal(env.PORT, port, 'the replicas listen where HAProxy sends');
  assert.ok(app.deploy.replicas >= 2 && app.deploy.replicas <= COMPOSE_REPLICA_SLOTS, 'HAProxy has a slot for every replica');
  // Draining outlasts the balancer's detection, and Docker waits for the drain and a full render.
  // A draining replica fails its next checks at once: out after `fall` of them (+ one interval).
  const detect = (COMPOSE.check_fall + 1) * seconds(COMPOSE.check_interval);
  assert.ok(seconds(COMPOSE.check_timeout) > 2, "the check timeout exceeds /readyz's own 2 s wait for the browser");
  assert.ok(Number(env.DRAIN_SECONDS) > detect, `DRAIN_SECONDS ${env.DRAIN_SECONDS} > HAProxy's detection ${detect} s`);
  assert.ok(seconds(app.stop_grace_period) >= Number(env.DRAIN_SECONDS) + RENDER_BUDGET_S, 'stop_grace_period covers the drain and a render');
  // Chromium's sandbox needs user namespaces, which Docker's default seccomp profile refuses.
  assert.ok(app.security_opt.includes('seccomp=unconfined'), 'the replicas may create user namespaces');
  assert.equal(env.BROWSER_SANDBOX, 'require', 'so a replica without the sandbox fails rather than runs');
  const lb = c.services.haproxy;
  assert.match(lb.image, /^haproxy:2\.6/, 'the HAProxy version the template is tested with');
  assert.ok(lb.volumes.includes(`./deploy/haproxy:${COMPOSE.errors_dir}:ro`), 'the rendered config and its errorfile are mounted');
  assert.ok(lb.command.includes(`${COMPOSE.errors_dir}/compose.cfg`), 'HAProxy runs the rendered config');
  const published = lb.ports.map((p: string) => p.split(':')[1]);
  assert.ok(published.includes(COMPOSE.bind.replace(/^.*:/, '')), 'the service port is published');
  assert.ok(published.includes(COMPOSE.stats_bind.replace(/^.*:/, '')), 'the stats port is published');
});

test('compose.yaml: API replicas take no batch item; workers are `npm run worker`, apart from HAProxy, with the same store, keys and secret', () => {
  const c = yaml('compose.yaml');
  const api = c.services.screenshot;
  const apiEnv = api.environment as Record<string, string>;
  assert.equal(apiEnv.RUN_BATCHES, 'false', 'the API replicas leave batch items to the workers');
  const w = c.services.worker;
  assert.deepEqual(w.command, ['npm', 'run', 'worker']);
  assert.ok(JSON.parse(read('package.json')).scripts.worker, 'npm run worker is a script of the package');
  assert.equal(w.build, api.build, 'the same image');
  const env = w.environment as Record<string, string>;
  assertKnownVariables('compose.yaml (worker)', Object.keys(env));
  for (const n of [
    'DATABASE_URL',
    'API_KEYS',
    'WEBHOOK_SECRET',
    'RESULTS_S3_BUCKET',
    'RESULTS_S3_ENDPOINT',
    'RESULTS_S3_ACCESS_KEY_ID',
    'RESULTS_S3_SECRET_ACCESS_KEY',
  ])
    assert.equal(env[n], apiEnv[n], `${n}: the same for the API replicas and the workers`);
  assert.equal(env.BATCH_SLOT_SHARE, '100', "every slot of a worker's browser is for items");
  assert.ok(!w.ports && !w.expose && env.PORT === undefined, 'a worker answers no HTTP');
  assert.equal(w.healthcheck?.disable, true, "the image's HEALTHCHECK (GET /healthz) does not apply to a worker");
  assert.ok(!COMPOSE.servers.includes('worker'), 'HAProxy sends to the API replicas only');
  assert.ok(seconds(w.stop_grace_period) >= RENDER_BUDGET_S, 'a stopping worker finishes the items it runs');
  assert.ok(w.security_opt.includes('seccomp=unconfined') && env.BROWSER_SANDBOX === 'require', "Chromium's sandbox, as for the API replicas");
  assert.deepEqual(w.depends_on, api.depends_on);
});

test("Dockerfile: bookworm-slim with Node 24, the project's setup script, tini, non-root, HEALTHCHECK on /healthz", () => {
  const d = read('Dockerfile');
  const lines = d.split('\n').filter((l) => !l.trimStart().startsWith('#'));
  const text = lines.join('\n');
  // The base is a build argument (the image tests pass a local stand-in); its default is what users get.
  assert.match(text, /^ARG BASE_IMAGE=node:24-bookworm-slim$/m, 'Debian bookworm-slim with Node 24');
  assert.match(text, /^FROM \$\{BASE_IMAGE\}$/m, 'built on that base');
  const engines = JSON.parse(read('package.json')).engines.node;
  assert.match(engines, /24/, 'the Node major the project targets');
  const pinned = JSON.parse(read('package.json')).devDependencies.node;
  assert.match(pinned, /^24\./, "the Node that npm scripts run (npm's node package) is of the same major");
  assert.match(text, /^COPY scripts\/setup-browser\.sh scripts\/setup-browser\.sh$/m);
  assert.match(text, /^RUN bash scripts\/setup-browser\.sh\b/m, "the browser and fonts come from the project's own setup script");
  assert.match(text, /apt-get install[^\n]*\btini\b/, 'tini from Debian');
  assert.match(text, /^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m, 'an init as PID 1');
  const user = /^USER (\S+)$/m.exec(text)?.[1];
  assert.ok(user && user !== 'root' && user !== '0', `a non-root user (${user})`);
  const health = /^HEALTHCHECK [\s\S]*?\/healthz/m.exec(text);
  assert.ok(health, 'HEALTHCHECK on /healthz');
  assert.ok(getRoutes().has('/healthz'));
  assert.match(text, /^CMD \["node", "--import", "tsx", "server\/main\.ts"\]$/m, 'the entry point the cluster tests run (scripts/cluster/replica.ts)');
  assert.match(read('scripts/cluster/replica.ts'), /'server\/main\.ts'/);
  const envBlock = /^ENV ((?:.*\\\n)*.*)$/m.exec(text)?.[1] ?? '';
  const env = Object.fromEntries([...envBlock.matchAll(/([A-Z][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  assertKnownVariables('Dockerfile', Object.keys(env));
  assert.equal(/^EXPOSE (\d+)$/m.exec(text)?.[1], env.PORT, 'EXPOSE is the PORT it listens on');
  assert.ok(CHROMIUM_CANDIDATES.includes(env.CHROMIUM_PATH!), 'CHROMIUM_PATH is where the setup script installs the browser');
  assert.match(read('scripts/setup-browser.sh'), /chromium-headless-shell/);
  // Everything COPY'd is in the build context (.dockerignore excludes the rest).
  const allowed = read('.dockerignore')
    .split('\n')
    .filter((l) => l.startsWith('!'))
    .map((l) => l.slice(1));
  for (const m of text.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
    for (const src of m[1]!.split(/\s+/)) assert.ok(allowed.includes(src), `.dockerignore lets ${src} into the build context`);
  }
});

test("Kubernetes: probes on the server's routes, a preStop drain, known variables, selectors and ports that match", () => {
  const dir = 'deploy/kubernetes';
  const dep = yaml(`${dir}/deployment.yaml`);
  const pod = dep.spec.template;
  const labels = pod.metadata.labels;
  assert.deepEqual(dep.spec.selector.matchLabels, labels);
  const [c] = pod.spec.containers;
  const env = Object.fromEntries(c.env.map((e: { name: string; value?: string }) => [e.name, e.value]));
  assertKnownVariables('deployment.yaml', Object.keys(env));
  const portName = c.ports[0].name;
  assert.equal(String(c.ports[0].containerPort), env.PORT, 'containerPort is the PORT it listens on');
  const routes = getRoutes();
  assert.equal(c.readinessProbe.httpGet.path, '/readyz');
  assert.ok(c.readinessProbe.timeoutSeconds > 2, "the readiness timeout exceeds /readyz's own 2 s wait for the browser");
  assert.equal(c.livenessProbe.httpGet.path, '/healthz');
  for (const p of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
    assert.ok(routes.has(p.httpGet.path), `${p.httpGet.path} is a route`);
    assert.equal(p.httpGet.port, portName);
  }
  const preStop = c.lifecycle.preStop.exec.command;
  assert.equal(preStop[0], 'sleep', 'preStop waits while the endpoints drop the pod');
  const drain = Number(preStop[1]) + Number(env.DRAIN_SECONDS ?? 0);
  assert.ok(pod.spec.terminationGracePeriodSeconds >= drain + RENDER_BUDGET_S, 'the grace period covers the drain and a render');
  assert.equal(pod.spec.securityContext.runAsNonRoot, true);
  assert.equal(pod.spec.securityContext.runAsUser, 1000, "the image's user (node, uid 1000)");
  assert.equal(pod.spec.securityContext.seccompProfile.type, 'Unconfined', "the pods may create user namespaces (Chromium's sandbox)");
  assert.equal(pod.metadata.annotations['seccomp.security.alpha.kubernetes.io/pod'], 'unconfined', 'the same, in the annotation podman kube play reads');
  assert.equal(env.BROWSER_SANDBOX, 'require', 'so a pod without the sandbox fails rather than runs');
  assert.match(read('Dockerfile'), /^USER node$/m);

  const svc = yaml(`${dir}/service.yaml`);
  assert.deepEqual(svc.spec.selector, labels);
  assert.equal(svc.spec.ports[0].targetPort, portName);
  const pdb = yaml(`${dir}/pdb.yaml`);
  assert.deepEqual(pdb.spec.selector.matchLabels, labels);

  const hpa = yaml(`${dir}/hpa.yaml`);
  assert.equal(hpa.spec.scaleTargetRef.kind, 'Deployment');
  assert.equal(hpa.spec.scaleTargetRef.name, dep.metadata.name);
  const metricName = hpa.spec.metrics[0].pods.metric.name;
  const pool = Object.assign(new EventEmitter<PoolEvents>(), { queueDepth: 0, inFlight: 0, warmSlots: 0, saturated: false });
  const exported = createMetrics(pool, { concurrency: 1, queueLimit: 1 })
    .registry.getMetricsAsArray()
    .map((m) => m.name);
  assert.ok(exported.includes(metricName), `${metricName} is a metric the server exports`);
  const adapter = yaml(`${dir}/prometheus-adapter-values.yaml`);
  const rule = adapter.rules.custom.find((r: { name: { as: string } }) => r.name.as === metricName);
  assert.ok(rule, 'prometheus-adapter has a rule serving that metric');
  assert.ok(rule.seriesQuery.startsWith(`${metricName}{`) && rule.metricsQuery.includes(metricName));
  assert.ok(read('docs/operations.md').includes('prometheus-adapter'), 'docs/operations.md names the adapter');

  assert.equal(env.RUN_BATCHES, 'false', 'the API pods leave batch items to the worker Deployment');

  // The workers: the same image as `npm run worker`, their own label (not the Service's, the PDB's
  // or the HPA's), the same store and keys, no port.
  const wdep = yaml(`${dir}/worker-deployment.yaml`);
  const wpod = wdep.spec.template;
  assert.deepEqual(wdep.spec.selector.matchLabels, wpod.metadata.labels);
  assert.notDeepEqual(wpod.metadata.labels, labels, 'the API selectors do not pick the workers');
  const [wc] = wpod.spec.containers;
  assert.equal(wc.image, c.image, 'the same image');
  assert.ok(!wc.command, "the image's ENTRYPOINT (tini) stays PID 1");
  assert.deepEqual(wc.args, ['npm', 'run', 'worker']);
  assert.ok(!wc.ports && !wc.readinessProbe && !wc.livenessProbe, 'a worker answers no HTTP');
  const wenv = Object.fromEntries(wc.env.map((e: { name: string; value?: string; valueFrom?: unknown }) => [e.name, e.value ?? JSON.stringify(e.valueFrom)]));
  assertKnownVariables('worker-deployment.yaml', Object.keys(wenv));
  const apiRefs = Object.fromEntries(c.env.map((e: { name: string; valueFrom?: unknown }) => [e.name, JSON.stringify(e.valueFrom)]));
  for (const n of ['DATABASE_URL', 'API_KEYS']) assert.equal(wenv[n], apiRefs[n], `${n}: from the same Secret as the API pods'`);
  assert.equal(wenv.BATCH_SLOT_SHARE, '100');
  assert.equal(wpod.spec.securityContext.seccompProfile.type, 'Unconfined');
  assert.equal(wenv.BROWSER_SANDBOX, 'require');
  assert.ok(wpod.spec.terminationGracePeriodSeconds >= RENDER_BUDGET_S + 20, "the items running and the queue's graceful stop");

  // KEDA: the worker Deployment on the queue's depth, by the query behind the pending-items gauge.
  const keda = yaml('deploy/keda-scaledobject.yaml');
  assert.equal(keda.apiVersion, 'keda.sh/v1alpha1');
  assert.equal(keda.kind, 'ScaledObject');
  assert.equal(keda.spec.scaleTargetRef.name, wdep.metadata.name);
  assert.ok(keda.spec.minReplicaCount >= 1, 'a worker for the webhook deliveries');
  const [trigger] = keda.spec.triggers;
  assert.equal(trigger.type, 'postgresql');
  assert.equal(trigger.metadata.query, PENDING_ITEMS_SQL, 'the gauge screenshot_batch_items_pending runs the same statement');
  assert.ok(Number(trigger.metadata.targetQueryValue) > 0);
  assert.ok(trigger.metadata.connectionFromEnv in wenv, "the connection is the workers' own");
  assert.ok(read('docs/operations.md').includes('deploy/keda-scaledobject.yaml'), 'docs/operations.md names the example');

  const kust = yaml(`${dir}/kustomization.yaml`);
  const manifests = readdirSync(path.join(ROOT, dir)).filter(
    (f) => f.endsWith('.yaml') && !['kustomization.yaml', 'prometheus-adapter-values.yaml'].includes(f),
  );
  assert.deepEqual([...kust.resources].sort(), manifests.sort(), 'kustomization lists every manifest');
  for (const f of manifests) assert.equal(parseAllDocuments(read(`${dir}/${f}`)).length, 1, `${f}: one document`);
});
