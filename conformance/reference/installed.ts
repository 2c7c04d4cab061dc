// The suite as its users get it: `npm pack -w screenshot-conformance` (which compiles it, see
// tools/build.ts), then the tarball installed with --omit=dev in an empty folder. The install is
// offline: `npm ci --offline` from a lockfile made of the tarball and the suite's dependencies as
// this repository pins them (the npm cache holds their tarballs after the repository's own
// `npm ci`), so that no test reaches the network. Used by the package self-test and by the
// conformance stage of CI, which runs the installed command rather than the source.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../fixture-pages/fixtures.ts';

const run = promisify(execFile);
export const SUITE_PACKAGE = 'screenshot-conformance';
/** Packages of the server that the suite must never bring into an install. */
export const SERVER_ONLY_PACKAGES = ['puppeteer-core', 'sharp', 'express', '@electric-sql/pglite', 'pg', '@duckduckgo/autoconsent'];

interface LockEntry {
  version?: string;
  resolved?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [k: string]: unknown;
}

export interface InstalledSuite {
  tarball: string;
  /** The folder the suite was installed in (its node_modules holds the suite and its dependencies). */
  dir: string;
  /** The installed command (node_modules/.bin/screenshot-conformance). */
  bin: string;
}

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    maxBuffer: 64 * 1024 * 1024,
  });

/**
 * The lockfile entries of the suite's production dependencies, from the repository's lockfile:
 * each name resolved as node does, from the suite's folder up (conformance/node_modules, then the
 * root's), transitively; a package the workspace keeps apart moves under the installed suite.
 */
export function dependencyClosure(lock: Record<string, LockEntry>, rootDeps: Record<string, string>): Record<string, LockEntry> {
  const out: Record<string, LockEntry> = {};
  const find = (name: string, from: string): string | undefined => {
    for (let dir = from; ; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
      const key = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
      if (lock[key]) return key;
      if (!dir) return undefined;
    }
  };
  const visit = (deps: Record<string, string>, from: string, optional: boolean) => {
    for (const name of Object.keys(deps)) {
      const key = find(name, from);
      if (!key) {
        if (optional) continue;
        throw new Error(`${name} (needed from ${from || 'the suite'}) is not in package-lock.json`);
      }
      const target = key.startsWith('conformance/') ? `node_modules/${SUITE_PACKAGE}/${key.slice('conformance/'.length)}` : key;
      if (out[target]) continue;
      const entry = lock[key]!;
      // With a resolved address and an integrity, `npm ci --offline` takes the tarball from the
      // cache by its hash, with no registry metadata (the repository's lockfile omits addresses).
      const base = name.split('/').pop();
      out[target] = entry.resolved ? entry : { resolved: `https://registry.npmjs.org/${name}/-/${base}-${entry.version}.tgz`, ...entry };
      visit(lock[key]!.dependencies ?? {}, key, false);
      visit(lock[key]!.optionalDependencies ?? {}, key, true);
    }
  };
  visit(rootDeps, 'conformance', false);
  return out;
}

/** Packs the suite into `work` and installs it there in `work/project`; returns where. */
export async function installSuite(work: string): Promise<InstalledSuite> {
  const { stdout } = await npm(['pack', '-w', SUITE_PACKAGE, '--json', '--pack-destination', work], REPO_ROOT);
  const tarball = path.join(work, (JSON.parse(stdout) as Array<{ filename: string }>)[0]!.filename);
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'conformance', 'package.json'), 'utf8')) as LockEntry & {
    name: string;
    version: string;
    dependencies: Record<string, string>;
  };
  const repoLock = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages;
  const dir = path.join(work, 'project');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'suite-install', private: true, dependencies: { [pkg.name]: `file:${tarball}` } }));
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const packages: Record<string, unknown> = {
    '': { name: 'suite-install', dependencies: { [pkg.name]: `file:${tarball}` } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: `file:${tarball}`,
      integrity,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
    ...dependencyClosure(repoLock, pkg.dependencies),
  };
  writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify({ name: 'suite-install', lockfileVersion: 3, requires: true, packages }));
  await npm(['ci', '--offline', '--omit=dev'], dir);
  return { tarball, dir, bin: path.join(dir, 'node_modules', '.bin', SUITE_PACKAGE) };
}

/** Bytes of every file under `dir` (symlinks not followed). */
export function treeBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += treeBytes(p);
    else if (e.isFile()) n += statSync(p).size;
  }
  return n;
}

/** The names of every package installed under `nodeModules`, nested ones included. */
export function installedPackages(nodeModules: string): string[] {
  const names: string[] = [];
  const walk = (nm: string) => {
    let entries;
    try {
      entries = readdirSync(nm, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      const dirs = e.name.startsWith('@') ? readdirSync(path.join(nm, e.name)).map((s) => `${e.name}/${s}`) : [e.name];
      for (const name of dirs) {
        names.push(name);
        walk(path.join(nm, name, 'node_modules'));
      }
    }
  };
  walk(nodeModules);
  return names;
}
