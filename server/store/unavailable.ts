// The PostgreSQL server gone (stopped, restarting, unreachable): a request that needs the store
// answers 503 overloaded with Retry-After at once, rather than 500 or a wait. Nothing was billed:
// a reservation or a commit that did not reach the store did not happen. Batch items meeting it
// run again later (server/batches/runner.ts takes overloaded as transient).
import { Overloaded } from '../errors.ts';

/** Seconds a client is told to wait: a restart of PostgreSQL takes a few. */
export const STORE_RETRY_AFTER_SECONDS = 5;
/** A connection attempt gives up after this long (a server that does not answer at all). */
export const CONNECT_TIMEOUT_MS = 2000;

/** SQLSTATE classes and codes of a server that is away: connection exceptions (08), shutdown and start-up (57P01-57P03). */
const SQLSTATES = /^(08...|57P01|57P02|57P03)$/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** What `pg` says of a connection that ended or never came (it sets no code on these). */
const MESSAGES = /Connection terminated|timeout exceeded when trying to connect|connection error and is not queryable|Client was closed/i;

export function isStoreUnavailable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && (SQLSTATES.test(code) || SOCKET_CODES.has(code))) return true;
  if (e instanceof AggregateError) return e.errors.some(isStoreUnavailable);
  return MESSAGES.test(e.message);
}

/** The error a caller gets: 503 with Retry-After for a store that is away, the error itself otherwise. */
export function unavailableOr(e: unknown): unknown {
  return isStoreUnavailable(e) ? new Overloaded('the database is unreachable for now; nothing was charged', STORE_RETRY_AFTER_SECONDS) : e;
}
