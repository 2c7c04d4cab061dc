// The result cache every replica shares (server/cache/index.ts says what it holds), with single
// flight: of identical requests arriving together, on one replica or several, one renders (the
// leader, holding a claim row in result_cache_flights) and the others wait for its entry and are
// served it as a free cache hit. A waiter whose leader ended without an entry (its render failed,
// its caller left, its process died and the claim expired) tries to lead itself.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Db } from '../store/index.ts';
import { ServiceError } from '../errors.ts';
import type { Acquired, CachedResult, ResultCache, WaitDeadline } from './index.ts';
import { CacheTables, entryBytes } from './sql.ts';

export interface SharedCacheOptions {
  ttlSeconds: number;
  maxBytes: number;
  /** How long a leader's claim holds without being ended (a crashed leader's waiters wait this long at most). */
  leaseMs: number;
  /** How often a waiter looks for the leader's entry (waiters on the leader's own replica are told at once). */
  pollMs?: number;
  now?: () => number;
  /** Reports cache faults; a fault never fails a capture (the cache is then skipped). */
  onError?: (err: unknown, during: string) => void;
}

/** The cache on `db` (its tables are the store's migrations: nothing to create here). */
export function openSharedCache(db: Db, opts: SharedCacheOptions): ResultCache {
  const enabled = opts.ttlSeconds > 0 && opts.maxBytes > 0;
  const t = new CacheTables(db);
  const now = opts.now ?? Date.now;
  const pollMs = opts.pollMs ?? 100;
  const onError = opts.onError ?? (() => {});
  /** Leaders of this process announce their end here, so that local waiters need not poll. */
  const ended = new EventEmitter();
  ended.setMaxListeners(0);
  const notBefore = (maxAgeSeconds?: number) => (maxAgeSeconds === undefined ? null : now() - maxAgeSeconds * 1000);

  const get: ResultCache['get'] = async (key, o = {}) => {
    if (!enabled) return undefined;
    return t.get(key, now(), notBefore(o.maxAgeSeconds)).catch((e) => {
      onError(e, 'cache lookup');
      return undefined;
    });
  };

  const set: ResultCache['set'] = async (key, value, o = {}) => {
    const ttl = o.ttlSeconds ?? opts.ttlSeconds;
    if (!enabled || ttl <= 0) return;
    const bytes = entryBytes(key, value);
    if (bytes > opts.maxBytes) return; // larger than the whole cache: not worth evicting everything
    try {
      const at = now();
      await t.put(key, value, bytes, at, at + ttl * 1000);
      await t.evict(at, opts.maxBytes);
    } catch (e) {
      onError(e, 'cache store');
    }
  };

  /** Waits for a poll interval, or less when a leader of this process ends the flight. */
  const pause = (key: string, signal?: AbortSignal, deadline?: WaitDeadline) =>
    new Promise<void>((resolve, reject) => {
      const stop = () => {
        clearTimeout(timer);
        ended.off(key, done);
        signal?.removeEventListener('abort', gone);
      };
      const done = () => {
        stop();
        resolve();
      };
      const gone = () => {
        stop();
        reject(new ServiceError('client_closed', 'the client closed the connection while waiting for an identical capture'));
      };
      const left = deadline ? deadline.at - now() : Infinity;
      if (left <= 0) {
        reject(deadline!.expired());
        return;
      }
      const timer = setTimeout(done, Math.min(pollMs, left));
      ended.once(key, done);
      if (signal?.aborted) gone();
      else signal?.addEventListener('abort', gone, { once: true });
    });

  const acquire = async (key: string, o: { maxAgeSeconds?: number; signal?: AbortSignal; deadline?: WaitDeadline } = {}): Promise<Acquired> => {
    const free = { end: async () => {} };
    if (!enabled) return { lead: free };
    try {
      let joined = false;
      for (;;) {
        const hit = await t.get(key, now(), notBefore(o.maxAgeSeconds));
        if (hit) return { hit, joined };
        const owner = randomUUID();
        if (await t.claim(key, owner, now(), opts.leaseMs)) {
          let over = false;
          return {
            lead: {
              end: async () => {
                if (over) return;
                over = true;
                await t.unclaim(key, owner).catch((e) => onError(e, 'cache flight end'));
                ended.emit(key);
              },
            },
          };
        }
        // Someone else renders it: wait until their entry appears or their flight ends.
        joined = true;
        for (;;) {
          await pause(key, o.signal, o.deadline);
          const s = await t.peek(key, now(), notBefore(o.maxAgeSeconds));
          if (s.ready || !s.pending) break;
        }
      }
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      onError(e, 'cache single flight');
      return { lead: free }; // the store failed: render without the cache's help
    }
  };

  return { get, set, acquire, enabled };
}

export type { CachedResult };
