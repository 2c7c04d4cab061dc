// The result cache's statements, on the shared store (server/store: PostgreSQL shared by every
// replica, or the embedded PGlite store of one process). Its tables, result_cache and
// result_cache_flights, are migration 3 of server/store/migrations.ts, which says what they hold.
import type { PictureFacts } from '../render/picture-facts.ts';
import type { Db } from '../store/index.ts';
import type { CachedResult } from './index.ts';

/** Fixed overhead counted per entry besides its bytes (row header, index entry, timestamps). */
const ENTRY_OVERHEAD = 256;

export function entryBytes(key: string, v: CachedResult): number {
  return ENTRY_OVERHEAD + key.length + v.body.length + v.contentType.length + JSON.stringify(v.picture).length;
}

interface Row {
  body: Uint8Array;
  content_type: string;
  headers: PictureFacts | string;
  width: number;
  height: number;
  stored_at: string | number;
}

export class CacheTables {
  constructor(private readonly db: Db) {}

  /** The entry if unexpired and stored at or after `notBefore`; marks it used (LRU). */
  async get(key: string, now: number, notBefore: number | null): Promise<CachedResult | undefined> {
    const rows = await this.db.query<Row & Record<string, unknown>>(
      `UPDATE result_cache SET used_at = $2 WHERE key = $1 AND expires_at > $2 AND ($3::bigint IS NULL OR stored_at >= $3)
       RETURNING body, content_type, headers, width, height, stored_at`,
      [key, now, notBefore],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      body: Buffer.from(r.body),
      contentType: r.content_type,
      picture: typeof r.headers === 'string' ? JSON.parse(r.headers) : r.headers,
      width: Number(r.width),
      height: Number(r.height),
      storedAt: Number(r.stored_at),
    };
  }

  async put(key: string, v: CachedResult, bytes: number, now: number, expiresAt: number): Promise<void> {
    await this.db.query(
      `INSERT INTO result_cache (key, body, content_type, headers, width, height, bytes, stored_at, expires_at, used_at)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $8)
       ON CONFLICT (key) DO UPDATE SET body = excluded.body, content_type = excluded.content_type,
         headers = excluded.headers, width = excluded.width, height = excluded.height, bytes = excluded.bytes,
         stored_at = excluded.stored_at, expires_at = excluded.expires_at, used_at = excluded.used_at`,
      [key, v.body, v.contentType, JSON.stringify(v.picture), v.width, v.height, bytes, now, expiresAt],
    );
  }

  /** Drops expired entries and flights, then the least recently used entries beyond maxBytes. */
  async evict(now: number, maxBytes: number): Promise<void> {
    await this.db.query('DELETE FROM result_cache_flights WHERE expires_at <= $1', [now]);
    await this.db.query(
      `DELETE FROM result_cache WHERE expires_at <= $1 OR key IN (
         SELECT key FROM (
           SELECT key, sum(bytes) OVER (ORDER BY used_at DESC, key) AS running FROM result_cache WHERE expires_at > $1
         ) s WHERE running > $2)`,
      [now, maxBytes],
    );
  }

  /** Total bytes held (for tests and operators). */
  async totalBytes(): Promise<number> {
    const rows = await this.db.query<{ n: unknown }>('SELECT COALESCE(SUM(bytes), 0) AS n FROM result_cache');
    return Number(rows[0]?.n ?? 0);
  }

  /** Claims the flight of `key` for `owner` unless another live claim holds it; true when claimed. */
  async claim(key: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const rows = await this.db.query(
      `INSERT INTO result_cache_flights AS f (key, owner, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at WHERE f.expires_at <= $4
       RETURNING owner`,
      [key, owner, now + leaseMs, now],
    );
    return rows.length > 0;
  }

  async unclaim(key: string, owner: string): Promise<void> {
    await this.db.query('DELETE FROM result_cache_flights WHERE key = $1 AND owner = $2', [key, owner]);
  }

  /** What a waiter looks at: is the entry there, is the flight still on. */
  async peek(key: string, now: number, notBefore: number | null): Promise<{ ready: boolean; pending: boolean }> {
    const rows = await this.db.query<{ ready: boolean; pending: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM result_cache WHERE key = $1 AND expires_at > $2 AND ($3::bigint IS NULL OR stored_at >= $3)) AS ready,
              EXISTS (SELECT 1 FROM result_cache_flights WHERE key = $1 AND expires_at > $2) AS pending`,
      [key, now, notBefore],
    );
    return { ready: Boolean(rows[0]?.ready), pending: Boolean(rows[0]?.pending) };
  }
}
