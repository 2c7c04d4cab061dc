// The glue every capture route shares (REST, signed links, MCP): a caller that disconnects before
// its answer is written stops the work (the render is aborted and nothing is billed), and the
// outcome of a capture, `ok` or its error code, is counted once in screenshot_requests_total.
import type { Response } from 'express';
import type { Counter } from 'prom-client';
import { ServiceError } from '../errors.ts';

/**
 * Runs `work` with a signal that aborts when the caller goes away before the answer is finished.
 * With `outcomes`, counts how it ended; errors go on to the error handler.
 */
export async function whileConnected<T>(res: Response, outcomes: Counter<'code'> | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  try {
    const out = await work(gone.signal);
    outcomes?.inc({ code: 'ok' });
    return out;
  } catch (e) {
    outcomes?.inc({ code: e instanceof ServiceError ? e.code : 'internal_error' });
    throw e;
  }
}
