// The embedded store served to the other processes of one machine (`npm start`: the API process
// and the batch worker) over a Unix socket in DATA_DIR, by a process of its own that holds PGlite.
// PGlite is one connection: statements run one after another, and a transaction holds it until
// its client ends it (its client gone: rolled back), as in-process. A client may LISTEN on a
// channel: a NOTIFY by any client (pg-boss's, as a job is queued) reaches the workers of another
// process as it would on PostgreSQL. Why a process of its own and
// not PostgreSQL's protocol: docs/architecture.md ("One machine").
import { chmodSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { receive, send, toWire, type Request } from './wire.ts';

/** Where npm start's store process listens: in DATA_DIR, beside the store's files. */
export const storeSocketPath = (dataDir: string) => path.join(dataDir, 'store.sock');

interface OpenTx {
  q: Transaction;
  end(commit: boolean): Promise<void>;
}

export interface StoreServer {
  close(): Promise<void>;
}

export async function serveStore(lite: PGlite, socketPath: string): Promise<StoreServer> {
  rmSync(socketPath, { force: true }); // left by a process that died
  const sockets = new Set<net.Socket>();
  let nextTx = 1;
  // LISTEN on PGlite's one session, once per channel; each notification goes to every client that
  // asked for the channel (a client gone is forgotten).
  const listeners = new Map<string, Set<net.Socket>>();
  async function listen(socket: net.Socket, channel: string) {
    let clients = listeners.get(channel);
    if (!clients) {
      listeners.set(channel, (clients = new Set()));
      const to = clients;
      await lite.listen(channel, (payload) => {
        for (const s of to) if (s.writable) send(s, { notice: channel, payload });
      });
    }
    clients.add(socket);
  }
  const server = net.createServer((socket) => {
    sockets.add(socket);
    const open = new Map<number, OpenTx>();
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      for (const clients of listeners.values()) clients.delete(socket);
      // A client gone mid-transaction (killed) leaves nothing of it.
      for (const t of open.values()) void t.end(false).catch(() => {});
      open.clear();
    });
    receive<Request>(socket, (m) => {
      void answer(m, open, socket).then(
        (value) => socket.writable && send(socket, { id: m.id, ok: true, value }),
        (e: unknown) => socket.writable && send(socket, { id: m.id, ok: false, error: toWire(e) }),
      );
    });
  });

  async function answer(m: Request, open: Map<number, OpenTx>, socket: net.Socket): Promise<unknown> {
    switch (m.op) {
      case 'query': {
        const q = m.tx === undefined ? lite : txOf(open, m.tx).q;
        return (await q.query(m.sql, m.params)).rows;
      }
      case 'exec': {
        const q = m.tx === undefined ? lite : txOf(open, m.tx).q;
        return (await q.exec(m.sql)).map((r) => ({ rows: r.rows }));
      }
      case 'begin': {
        const id = nextTx++;
        open.set(id, await begin());
        return id;
      }
      case 'end': {
        const t = txOf(open, m.tx);
        open.delete(m.tx);
        await t.end(m.commit);
        return null;
      }
      case 'listen':
        await listen(socket, m.channel);
        return null;
    }
  }

  /** A transaction held open until its client ends it. */
  function begin(): Promise<OpenTx> {
    return new Promise<OpenTx>((resolve, reject) => {
      let decide!: (commit: boolean) => void;
      const decided = new Promise<boolean>((r) => (decide = r));
      const done = lite.transaction(async (q) => {
        resolve({
          q,
          end: (commit) => {
            decide(commit);
            return done;
          },
        });
        if (!(await decided)) await q.rollback();
      });
      done.catch(reject);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

function txOf(open: Map<number, OpenTx>, id: number): OpenTx {
  const t = open.get(id);
  if (!t) throw new Error(`no open transaction ${id} on this connection`);
  return t;
}
