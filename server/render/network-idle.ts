// Requests in flight, counted from the protocol's network events (spec §4.1 rule 5, §8):
// networkidle0 = no request in flight for 500 ms, networkidle2 = at most 2 for 500 ms.
// puppeteer's own networkidle options are not used: on setContent they hang on a reused page or
// cost a fixed ~2 s, and on goto they add ~890 ms over `load` where the spec's window is 500 ms.
// Requests of a document or frame that goes away without a network request never report an end:
// request-owners.ts says when the browser has dropped them.
import type { CDPSession, Frame, HTTPRequest, Page } from 'puppeteer-core';
import { sleep } from '../toolkit/deadline.ts';
import { RequestOwners } from './request-owners.ts';

export const IDLE_WINDOW_MS = 500;

/** The protocol's requestId of a request: puppeteer's CdpHTTPRequest has it as `id`, untyped. */
const requestId = (r: HTTPRequest): string => (r as unknown as { id: string }).id;

export class InflightTracker {
  private readonly inflight = new Set<HTTPRequest>();
  /** lastBusy[n]: last time more than n requests were in flight (n = 0, 2). */
  private readonly lastBusy = new Map<number, number>();
  private waiters: Array<() => void> = [];
  private readonly detach: () => void;
  private readonly owners = new RequestOwners((gone) =>
    this.update(() => {
      for (const r of this.inflight) if (gone(requestId(r))) this.inflight.delete(r);
    }),
  );

  /** `ignore`: requests that never count (those the request blocks: server/blocking/). */
  constructor(
    page: Page,
    private readonly ignore: (r: HTTPRequest) => boolean = () => false,
  ) {
    const start = Date.now();
    this.lastBusy.set(0, start).set(2, start);
    const onStart = (r: HTTPRequest) => {
      if (!this.tracks(r)) return;
      this.update(() => {
        // A new main-frame document: requests of the old one may never report an end.
        if (r.isNavigationRequest() && r.frame() === page.mainFrame()) this.inflight.clear();
        this.inflight.add(r);
      });
      // An out-of-process frame's session: its first request is its navigation, watched from here on.
      this.owners.watch(r.client);
    };
    const onEnd = (r: HTTPRequest) =>
      this.update(() => {
        this.inflight.delete(r);
        this.owners.forget(requestId(r));
      });
    // A removed frame takes its descendants' requests too (puppeteer detaches them all).
    const onFrameGone = (_f: Frame) =>
      this.update(() => {
        for (const r of this.inflight) if (r.frame()?.detached) this.inflight.delete(r);
      });
    // puppeteer's own session of the page (Network and Page enabled from its creation): a session
    // opened later is not told about the requests of the page's initial (html mode) document.
    const main = (page.mainFrame() as unknown as { client?: CDPSession }).client;
    if (main) this.owners.watch(main);
    page.on('request', onStart);
    page.on('requestfinished', onEnd);
    page.on('requestfailed', onEnd);
    page.on('framedetached', onFrameGone);
    this.detach = () => {
      page.off('request', onStart);
      page.off('requestfinished', onEnd);
      page.off('requestfailed', onEnd);
      page.off('framedetached', onFrameGone);
      this.owners.dispose();
    };
  }

  /** Whether a request counts: blob: and data: loads are local and some (a SharedWorker's blob script) never report an end; blocked ones never leave. */
  tracks(r: HTTPRequest): boolean {
    return !/^(blob|data):/i.test(r.url()) && !this.ignore(r);
  }

  get count(): number {
    return this.inflight.size;
  }

  private update(change: () => void): void {
    const before = this.inflight.size;
    change();
    const now = Date.now();
    for (const n of this.lastBusy.keys()) if (before > n || this.inflight.size > n) this.lastBusy.set(n, now);
    const w = this.waiters;
    this.waiters = [];
    for (const wake of w) wake();
  }

  private changed(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }

  /** Resolves once at most `maxInflight` requests have been in flight for the whole window. */
  async waitForIdle(maxInflight: 0 | 2, windowMs = IDLE_WINDOW_MS): Promise<void> {
    for (;;) {
      if (this.inflight.size > maxInflight) {
        await this.changed();
        continue;
      }
      const quietFor = Date.now() - (this.lastBusy.get(maxInflight) ?? 0);
      if (quietFor >= windowMs) return;
      await Promise.race([sleep(windowMs - quietFor), this.changed()]);
    }
  }

  dispose(): void {
    this.detach();
    this.waiters.forEach((w) => w());
    this.waiters = [];
  }
}
