// The frames between the store's process (serve.ts) and its clients (shared.ts): a 4-byte length,
// then one value in V8's serialisation, which keeps what a row holds (Date, Buffer, bigint, JSON)
// as PGlite returned it, so that a statement answers the same over the socket as in-process. The
// store also sends the notifications of the channels a client listens on (LISTEN/NOTIFY), unasked.
import { deserialize, serialize } from 'node:v8';
import type { Socket } from 'node:net';

export type Request =
  | { id: number; op: 'query'; sql: string; params: unknown[]; tx?: number }
  | { id: number; op: 'exec'; sql: string; tx?: number }
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'listen'; channel: string };

/** An error as the store raised it: its message and PostgreSQL's fields (code, constraint ...). */
export type WireError = { message: string; fields: Record<string, unknown> };

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };

/** A NOTIFY on a channel the client listens on (pg-boss's wake-ups), sent when it happens. */
export type Notice = { notice: string; payload: string };

export function send(socket: Socket, message: Request | Reply | Notice): void {
  const body = serialize(message);
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(body.length);
  socket.write(Buffer.concat([head, body]));
}

/** Calls `onMessage` with each whole frame that arrives on the socket. */
export function receive<T>(socket: Socket, onMessage: (m: T) => void): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 4) {
      const length = pending.readUInt32BE(0);
      if (pending.length < 4 + length) break;
      const frame = pending.subarray(4, 4 + length);
      pending = pending.subarray(4 + length);
      onMessage(deserialize(frame) as T);
    }
  });
}

const FIELDS = ['code', 'detail', 'hint', 'constraint', 'table', 'column', 'schema', 'severity'] as const;

export function toWire(e: unknown): WireError {
  if (!(e instanceof Error)) return { message: String(e), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const f of FIELDS) if ((e as unknown as Record<string, unknown>)[f] !== undefined) fields[f] = (e as unknown as Record<string, unknown>)[f];
  return { message: e.message, fields };
}

export function fromWire(w: WireError): Error {
  return Object.assign(new Error(w.message), w.fields);
}
