// compose.yaml's `screenshot` service as `podman run` arguments: the containers of the image tests
// start as Compose would start them (its environment, security_opt, shm_size, tmpfs, read_only,
// user, capabilities, stop grace period), read from the file itself. A setting this translation
// does not know fails the tests instead of being silently left out.
// Differences, each forced by where the tests run and applied in one place (overrides):
// host networking instead of Compose's network (so HOST=127.0.0.1 keeps the server on loopback,
// PORT is a free port, DATABASE_URL is the test PostgreSQL), and the tests' own variables.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Service {
  environment: Record<string, string>;
  security_opt?: string[];
  shm_size?: string;
  tmpfs?: string[] | string;
  read_only?: boolean;
  user?: string;
  cap_drop?: string[];
  cap_add?: string[];
  stop_grace_period?: string;
  deploy?: { replicas?: number };
}

/** Keys of the service that need no flag here, and why. */
const ELSEWHERE: Record<string, string> = {
  build: 'the tests build the Dockerfile themselves',
  deploy: 'replicas: the cluster check starts its own',
  expose: 'host networking',
  depends_on: 'PostgreSQL runs on the host',
};
const TRANSLATED = ['environment', 'security_opt', 'shm_size', 'tmpfs', 'read_only', 'user', 'cap_drop', 'cap_add', 'stop_grace_period'];

export function composeService(name = 'screenshot'): Service {
  const doc = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'));
  const svc = doc.services[name];
  for (const k of Object.keys(svc)) {
    if (!(k in ELSEWHERE) && !TRANSLATED.includes(k))
      throw new Error(`compose.yaml: service ${name} sets "${k}", which test/image/compose.ts does not translate yet`);
  }
  return svc as Service;
}

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR:?error} from `vars`. */
export function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return String(value).replace(/\$\{(\w+)(?:(:-|:\?)([^}]*))?\}/g, (_, name: string, op?: string, arg?: string) => {
    const v = vars[name];
    if (v !== undefined && v !== '') return v;
    if (op === ':-') return arg ?? '';
    if (op === ':?') throw new Error(`compose.yaml: ${name} must be set (${arg})`);
    return '';
  });
}

/** "45s", "1m30s", "500ms" -> seconds. */
export function durationSeconds(d: string): number {
  let s = 0;
  for (const m of String(d).matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) s += Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  return s;
}

/** The service's environment after interpolation, then `overrides` (the tests' differences). */
export function composeEnvironment(svc: Service, vars: Record<string, string>, overrides: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.environment)) env[k] = interpolate(v, vars);
  return { ...env, ...overrides };
}

/** `podman run` flags for the service, with `env` as its environment. */
export function composeRunArgs(svc: Service, env: Record<string, string>): string[] {
  const args = ['--network', 'host'];
  for (const [k, v] of Object.entries(env)) args.push('--env', `${k}=${v}`);
  for (const o of svc.security_opt ?? []) args.push('--security-opt', o);
  if (svc.shm_size) args.push('--shm-size', svc.shm_size);
  for (const t of [svc.tmpfs ?? []].flat()) args.push('--tmpfs', t);
  if (svc.read_only) args.push('--read-only');
  if (svc.user) args.push('--user', svc.user);
  for (const c of svc.cap_drop ?? []) args.push('--cap-drop', c);
  for (const c of svc.cap_add ?? []) args.push('--cap-add', c);
  if (svc.stop_grace_period) args.push('--stop-timeout', String(Math.ceil(durationSeconds(svc.stop_grace_period))));
  return args;
}
