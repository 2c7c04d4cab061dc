// A client of the embedded store served by its own process (serve.ts): the same Db as in-process,
// over a Unix socket. One connection, statements multiplexed by id; a connection lost (the store's
// process restarting) fails what was in flight as the store being away (503, nothing billed) and
// the next statement connects again.
import net from 'node:net';
import type { Db, Queryable, Row } from './db.ts';
import { unavailableOr } from './unavailable.ts';
import { fromWire, receive, send, type Notice, type Reply, type Request } from './wire.ts';

type Body = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export function openShared(socketPath: string): Db {
  let conn: Promise<net.Socket> | undefined;
  let nextId = 1;
  let closed = false;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  // The channels this client listens on (pg-boss's wake-ups), asked for again on a new connection:
  // notifications sent while the store was away are lost (the listeners' fallback poll finds their jobs).
  const channels = new Map<string, Set<(payload: string) => void>>();
  const askListen = (s: net.Socket, channel: string) => {
    const id = nextId++;
    waiting.set(id, { resolve: () => {}, reject: () => {} });
    send(s, { id, op: 'listen', channel });
  };

  let everConnected = false;
  const connect = (): Promise<net.Socket> =>
    (conn ??= new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect(socketPath);
      s.once('connect', () => {
        everConnected = true;
        for (const channel of channels.keys()) askListen(s, channel);
        resolve(s);
      });
      s.on('error', (e) => {
        conn = undefined;
        reject(e);
      });
      s.on('close', () => {
        conn = undefined;
        const gone = Object.assign(new Error('the store process closed the connection'), { code: 'ECONNRESET' });
        for (const w of waiting.values()) w.reject(gone);
        waiting.clear();
      });
      receive<Reply | Notice>(s, (r) => {
        if ('notice' in r) {
          for (const f of channels.get(r.notice) ?? []) f(r.payload);
          return;
        }
        const w = waiting.get(r.id);
        if (!w) return;
        waiting.delete(r.id);
        if (r.ok) w.resolve(r.value);
        else w.reject(fromWire(r.error));
      });
    }));

  /** npm start starts its processes together: until the store's process first listens, its clients wait for it (up to a minute). */
  async function firstConnect(): Promise<net.Socket> {
    for (let waited = 0; ; waited += 100) {
      try {
        return await connect();
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (everConnected || waited >= 60_000 || (code !== 'ENOENT' && code !== 'ECONNREFUSED')) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async function call<T>(body: Body): Promise<T> {
    if (closed) throw new Error('the store is closed');
    try {
      const s = await firstConnect();
      const id = nextId++;
      return await new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        send(s, { id, ...body } as Request);
      });
    } catch (e) {
      throw unavailableOr(e);
    }
  }

  const scoped = (tx?: number): Queryable => ({
    query: <T extends Row>(sql: string, params: unknown[] = []) => call<T[]>({ op: 'query', sql, params, tx }),
  });

  return {
    kind: 'shared',
    // What pg-boss's PGlite adapter calls (fromPglite needs query and exec).
    pglite: {
      query: async (sql: string, params: unknown[] = []) => ({ rows: await call<Row[]>({ op: 'query', sql, params }) }),
      exec: (sql: string) => call<Array<{ rows: Row[] }>>({ op: 'exec', sql }),
      // LISTEN through the store's process (serve.ts): NOTIFY in any process wakes this one's workers.
      async listen(channel: string, onNotice: (payload: string) => void) {
        const fs = channels.get(channel) ?? new Set();
        channels.set(channel, fs);
        fs.add(onNotice);
        await call({ op: 'listen', channel });
        return async () => void fs.delete(onNotice);
      },
    },
    query: scoped().query,
    async tx(fn) {
      const tx = await call<number>({ op: 'begin' });
      let out;
      try {
        out = await fn(scoped(tx));
      } catch (e) {
        await call({ op: 'end', tx, commit: false }).catch(() => {});
        throw e;
      }
      await call({ op: 'end', tx, commit: true });
      return out;
    },
    async close() {
      closed = true;
      const s = await conn?.catch(() => undefined);
      s?.end();
    },
  };
}
