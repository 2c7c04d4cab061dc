// Results on local disk: one file per picture under DATA_DIR/results, its content type in the
// first line of a sidecar. Written to a temporary name and renamed, so that a crash mid-write
// never leaves half a picture under the real name.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ResultStore } from './store.ts';

/** Keys are ours (batch id and index), but a key never leaves the directory all the same. */
function fileOf(root: string, key: string): string {
  if (!/^[A-Za-z0-9_/.-]+$/.test(key) || key.split('/').some((p) => p === '' || p === '.' || p === '..')) throw new Error(`bad result key ${key}`);
  return path.join(root, key);
}

export function localResults(dataDir: string): ResultStore {
  const root = path.join(dataDir, 'results');
  return {
    kind: 'local',
    async put(key, { body, contentType }) {
      const file = fileOf(root, key);
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(`${tmp}.type`, contentType, { mode: 0o600 });
      await rename(`${tmp}.type`, `${file}.type`);
      await writeFile(tmp, body, { mode: 0o600 });
      await rename(tmp, file);
    },
    async get(key) {
      const file = fileOf(root, key);
      try {
        const [body, contentType] = await Promise.all([readFile(file), readFile(`${file}.type`, 'utf8')]);
        return { body, contentType };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    },
    async delete(key) {
      const file = fileOf(root, key);
      await Promise.all([rm(file, { force: true }), rm(`${file}.type`, { force: true })]);
    },
    close: async () => {},
  };
}
