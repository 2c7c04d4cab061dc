// The settings table is the whole configuration: every variable config.ts reads is in it, every
// entry is read, and each parses to its stated default and refuses values outside its bounds.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';
import { SETTINGS } from './settings.ts';

const src = readFileSync(new URL('./config.ts', import.meta.url), 'utf8');
const read = new Set([...src.matchAll(/env\.([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] ?? m[2]!));
const env = { CHROMIUM_PATH: process.execPath }; // any executable will do for parsing

test('config.ts reads exactly the variables of the settings table', () => {
  assert.deepEqual([...read].sort(), Object.keys(SETTINGS).sort());
});

test('every setting has a description', () => {
  for (const [name, s] of Object.entries(SETTINGS)) assert.ok(s.doc.length > 10, name);
});

test('integer settings default as stated and refuse values outside their bounds, naming the variable', () => {
  const defaults = loadConfig(env);
  assert.equal(defaults.port, SETTINGS.PORT.default);
  assert.equal(defaults.renderBudgetMs, SETTINGS.RENDER_BUDGET_MS.default);
  assert.equal(defaults.maxConnectionsPerIp, SETTINGS.MAX_CONNECTIONS_PER_IP.default);
  for (const [name, s] of Object.entries(SETTINGS)) {
    if (s.kind !== 'int') continue;
    assert.throws(
      () => loadConfig({ ...env, [name]: String(s.max + 1) }),
      (e: Error) => e instanceof ConfigError && e.message.startsWith(name),
      name,
    );
    if (s.min > 0) assert.throws(() => loadConfig({ ...env, [name]: String(s.min - 1) }), ConfigError, name);
  }
});

test('WORKER_METRICS_PORT: unset, no listener; a port, 0 among them; anything else refused, naming the variable', () => {
  assert.equal(loadConfig(env).workerMetricsPort, null);
  assert.equal(loadConfig({ ...env, WORKER_METRICS_PORT: '0' }).workerMetricsPort, 0);
  assert.equal(loadConfig({ ...env, WORKER_METRICS_PORT: '9464' }).workerMetricsPort, 9464);
  for (const bad of ['65536', '-1', 'on'])
    assert.throws(
      () => loadConfig({ ...env, WORKER_METRICS_PORT: bad }),
      (e: Error) => e instanceof ConfigError && e.message.startsWith('WORKER_METRICS_PORT'),
      bad,
    );
});
