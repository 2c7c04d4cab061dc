// `npm run cluster [-- --replicas N --workers M --port P --verbose]`: the reference deployment on
// one machine (docs/operations.md "Running at scale"). Starts a throwaway PostgreSQL
// (scripts/setup-postgres.sh; or uses DATABASE_URL when set), N API replicas on it (default 3)
// with HAProxy in front (scripts/setup-haproxy.sh installs it on Debian as root), and M batch
// workers (default 2) beside them, then prints the one URL to use and an API key. Ctrl-C stops
// everything (the throwaway PostgreSQL and its data included).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './cluster/haproxy.ts';
import { startCluster } from './cluster/launch.ts';

const { values: args } = parseArgs({
  options: {
    replicas: { type: 'string', default: '3' },
    workers: { type: 'string', default: '2' },
    port: { type: 'string', default: '8080' },
    verbose: { type: 'boolean', default: false },
  },
});
const replicas = Number(args.replicas);
const workers = Number(args.workers);
const port = Number(args.port);
if (!Number.isInteger(replicas) || replicas < 1 || replicas > 32) throw new Error('--replicas must be an integer between 1 and 32');
// 0 workers: batches are accepted and wait in the queue (its depth shows on the replicas' /metrics).
if (!Number.isInteger(workers) || workers < 0 || workers > 32) throw new Error('--workers must be an integer between 0 and 32');
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be a port number (0: any free one)');

const script = (name: string, ...a: string[]) =>
  execFileSync('bash', [path.join(ROOT, 'scripts', name), ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
const lastLine = (s: string) => s.trim().split('\n').pop()!.trim();

const chromium = lastLine(script('setup-browser.sh'));
const haproxyBinary = lastLine(script('setup-haproxy.sh'));

let databaseUrl = process.env.DATABASE_URL?.trim() ?? '';
let pgDir = '';
if (!databaseUrl) {
  const exports = script('setup-postgres.sh', 'start');
  databaseUrl = /TEST_DATABASE_URL=(\S+)/.exec(exports)?.[1] ?? '';
  pgDir = /PG_TEST_DIR=(\S+)/.exec(exports)?.[1] ?? '';
  if (!databaseUrl) throw new Error('scripts/setup-postgres.sh did not print a database URL');
}
const stopPostgres = () => {
  if (pgDir) script('setup-postgres.sh', 'stop', pgDir);
  pgDir = '';
};

const given = (process.env.API_KEYS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const key = given[0] ?? `sk_cluster_${randomBytes(24).toString('base64url')}`;
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
Object.assign(env, { CHROMIUM_PATH: chromium, API_KEYS: given.length ? given.join(',') : key, DRAIN_SECONDS: process.env.DRAIN_SECONDS ?? '5' });

console.error(`cluster: starting ${replicas} API replicas, HAProxy (${haproxyBinary}) and ${workers} batch workers...`);
const cluster = await startCluster({
  replicas,
  workers,
  databaseUrl,
  env,
  haproxyBinary,
  port,
  haproxyLogLevel: args.verbose ? 'info' : 'notice',
  onLine: (name, line) => {
    let level = 30;
    try {
      level = JSON.parse(line).level ?? 30;
    } catch {
      // not JSON
    }
    if (args.verbose || level >= 40) console.error(`[${name}] ${line}`);
  },
}).catch((e) => {
  stopPostgres();
  throw e;
});

console.log(`
Cluster up: ${replicas} API replicas (${cluster.replicas.map((r) => `${r.name} pid ${r.pid} :${r.port}`).join(', ')})
behind HAProxy and ${workers} batch workers (${cluster.workers.map((w) => `${w.name} pid ${w.pid}, ${w.url}/metrics`).join('; ') || 'none'}),
sharing PostgreSQL${pgDir ? ' (throwaway)' : ''}.

  URL:     ${cluster.url}
  API key: ${key}
  HAProxy: ${cluster.statsUrl}/ (stats), ${cluster.statsUrl}/metrics (Prometheus)

Try:
  curl -s -X POST ${cluster.url}/v1/screenshot -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" -d '{"html":"<h1>Hello</h1>"}' -o shot.png

Rolling restart: kill -TERM <pid> drains that replica (/readyz 503, DRAIN_SECONDS=${env.DRAIN_SECONDS}) and it exits;
a worker given SIGTERM finishes its items and exits. This script does not restart either. Ctrl-C stops everything.
`);

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    console.error(`cluster: ${sig}: stopping replicas, workers, HAProxy${pgDir ? ' and PostgreSQL' : ''}...`);
    cluster
      .stop()
      .finally(stopPostgres)
      .then(
        () => process.exit(0),
        (e) => {
          console.error(e);
          process.exit(1);
        },
      );
  });
}
