// Draining: how a replica leaves a load balancer without losing a request (docs/operations.md "Running at
// scale"). On SIGTERM the server calls start(): from then on /readyz answers 503 (so a balancer
// that health-checks it stops routing to it), every response carries `Connection: close` (so
// keep-alive clients reconnect, through the balancer, to another replica), and requests still
// arriving are served normally for DRAIN_SECONDS. Only then does the listener close; the renders
// in flight finish and the process exits (server/start.ts close()).
import type { NextFunction, Request, Response } from 'express';
import { HEADER } from '../response/registry.ts';

export class Drain {
  private startedAt: number | undefined;
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];

  /** True once draining has begun (SIGTERM); never false again. */
  get draining(): boolean {
    return this.startedAt !== undefined;
  }

  /** HTTP requests received and not yet answered (or abandoned by their caller). */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  start(): void {
    this.startedAt ??= Date.now();
  }

  /** Express middleware: counts requests in flight; once draining, answers with `Connection: close`. */
  middleware() {
    return (_req: Request, res: Response, next: NextFunction) => {
      this.inFlight++;
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        if (--this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
      };
      res.once('finish', end);
      res.once('close', end);
      // Checked when the response starts, not when the request arrived: a render that began
      // before SIGTERM and ends after it must close its connection too.
      const writeHead = res.writeHead;
      res.writeHead = ((...args: Parameters<Response['writeHead']>) => {
        if (this.draining && !res.headersSent) res.setHeader(HEADER.connection, 'close');
        return writeHead.apply(res, args);
      }) as Response['writeHead'];
      next();
    };
  }

  /** Resolves when no request is in flight, or after `ms` (whichever comes first). */
  async idle(ms: number): Promise<boolean> {
    if (this.inFlight === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const quiet = new Promise<true>((r) => this.idleWaiters.push(() => r(true)));
    const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
    const out = await Promise.race([quiet, late]);
    clearTimeout(timer);
    return out;
  }
}
