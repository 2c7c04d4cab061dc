// Which frame and which document (loader) made each request, from the protocol's own events, so
// that the idle windows count what the browser really has in flight (spec §4.1 rule 5, §8). A document that goes away WITHOUT a network request (about:blank, a javascript: or
// data: URL, a history entry restored from cache) takes its requests with it, and Chromium reports
// no end for them: the frame commits a new document with a new loaderId, and the requests of the
// old one are gone. A frame removed from its parent goes the same way. Neither a same-document
// navigation (pushState, #hash: Page.navigatedWithinDocument, same loader) nor document.open()
// (Page.documentOpened, same loader: Chromium keeps loading what the old content asked for, and
// its own networkIdle waits for it) ends anything, so those requests keep counting.
import type { CDPSession, Protocol } from 'puppeteer-core';

interface Owner {
  frameId: string;
  loaderId: string;
}

/** Called with a test: the tracked requests it matches (by request id) are gone. */
export type OnGone = (gone: (requestId: string) => boolean) => void;

export class RequestOwners {
  private readonly owners = new Map<string, Owner>();
  private readonly watched = new Set<CDPSession>();
  private readonly offs: Array<() => void> = [];

  constructor(private readonly onGone: OnGone) {}

  /**
   * Watches one target's session (the page's, or an out-of-process frame's). Events of a session
   * arrive in order, so a request learnt here before its frame's commit belongs to the old document
   * and one learnt after to the new; one not learnt at all is never dropped.
   */
  watch(session: CDPSession): void {
    if (this.watched.has(session)) return;
    this.watched.add(session);
    const onRequest = (e: Protocol.Network.RequestWillBeSentEvent) => {
      if (e.frameId && e.loaderId) this.owners.set(e.requestId, { frameId: e.frameId, loaderId: e.loaderId });
    };
    // Cross-document commits only (same-document ones are Page.navigatedWithinDocument).
    const onNavigated = (e: Protocol.Page.FrameNavigatedEvent) => {
      const { id, loaderId } = e.frame;
      this.onGone((rid) => {
        const o = this.owners.get(rid);
        return o !== undefined && o.frameId === id && o.loaderId !== loaderId && rid !== loaderId;
      });
    };
    // 'swap' is a frame moving to another process: its new document commits there (onNavigated).
    const onDetached = (e: Protocol.Page.FrameDetachedEvent) => {
      if (e.reason === 'remove') this.onGone((rid) => this.owners.get(rid)?.frameId === e.frameId);
    };
    session.on('Network.requestWillBeSent', onRequest);
    session.on('Page.frameNavigated', onNavigated);
    session.on('Page.frameDetached', onDetached);
    this.offs.push(() => {
      session.off('Network.requestWillBeSent', onRequest);
      session.off('Page.frameNavigated', onNavigated);
      session.off('Page.frameDetached', onDetached);
    });
  }

  /** A tracked request ended: its owner is not needed any more. */
  forget(requestId: string): void {
    this.owners.delete(requestId);
  }

  dispose(): void {
    for (const off of this.offs.splice(0)) off();
    this.owners.clear();
    this.watched.clear();
  }
}
