// The embedded store: PGlite (PostgreSQL in WASM) persisted in DATA_DIR, nothing to install. It
// serves one process at a time: two processes opening the same directory would corrupt it, so
// the directory is locked while open.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Db, Row } from './db.ts';

export class StoreInUse extends Error {}

/** One PGlite database in `<dataDir>/ledger`. */
export async function openEmbedded(dataDir: string): Promise<Db> {
  const dir = path.join(dataDir, 'ledger');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const unlock = lockDir(dataDir);
  let lite: PGlite;
  try {
    // The store is a few small tables: 16 MB of buffers instead of the default 128 MB saves
    // about 130 MB of resident memory.
    lite = await PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'] });
  } catch (e) {
    unlock();
    throw e;
  }
  return {
    kind: 'embedded',
    pglite: lite,
    async query<T extends Row>(sql: string, params: unknown[] = []) {
      return (await lite.query<T>(sql, params)).rows;
    },
    // PGlite is a single connection: its transaction() holds a mutex, so transactions run one
    // after another and plain queries wait for them.
    tx: (fn) => lite.transaction((t) => fn({ query: async <T extends Row>(sql: string, params: unknown[] = []) => (await t.query<T>(sql, params)).rows })),
    async close() {
      try {
        await lite.close();
      } finally {
        unlock();
      }
    },
  };
}

const openHere = new Set<string>();

/**
 * `<dataDir>/ledger.lock` holds the owner's pid and host; a lock whose process is gone (a crash)
 * is taken over. Returns the unlock function.
 */
function lockDir(dataDir: string): () => void {
  const file = path.resolve(dataDir, 'ledger.lock');
  const me = `${process.pid} ${hostname()}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeFileSync(fd, me);
      closeSync(fd);
      openHere.add(file);
      return () => {
        openHere.delete(file);
        rmSync(file, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const [pid, host] = readFileSync(file, 'utf8').trim().split(' ');
    // Our own pid counts only if this process really has it open (a container restarted with
    // the same pid and host name finds its own old lock).
    const busy = Number(pid) === process.pid ? openHere.has(file) : alive(Number(pid));
    if (host === hostname() && busy) {
      throw new StoreInUse(
        `the embedded store in ${dataDir} is in use by process ${pid}; it serves one process at a time ` +
          '(stop that process first, or set DATABASE_URL to share a PostgreSQL ledger)',
      );
    }
    rmSync(file, { force: true }); // stale: its process is gone
  }
  throw new StoreInUse(`could not lock ${file}`);
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
