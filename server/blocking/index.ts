// Request blocking (blockResourceTypes, blockUrls): the page's requests of those types or URLs are
// refused inside the browser, before they are sent, in every frame, and counted (x-blocked-requests).
//
// How: the render's own CDP session enables the Fetch domain with patterns (rules.ts), so the
// browser pauses only the requests a pattern may match and hands them to us to fail
// (BlockedByClient); every other request goes on without a round trip to us (measured on a page
// of 120 images: a pattern that matches nothing +6%, intercepting every request +18%; README
// "Preparing the page"). Puppeteer's own
// request interception (headers, cookies: server/page-env/) is another session's and chains after
// ours: a blocked request never reaches it. Out-of-process frames and workers are other targets:
// the session auto-attaches to each (paused until armed), arms it the same way and lets it run.
// Websockets are refused in the page (websocket.ts). When only one of xhr and fetch is blocked, a
// paused request of either is decided by its Network type (rules.ts), for which the session
// enables the Network domain.
//
// Blocking only ever takes requests away: what is not blocked still goes through the egress guard
// (the proxy every connection of the browser uses, DESIGN §4). Blocked requests are never counted
// as in flight by the network-idle waits (ignores(), server/render/network-idle.ts), so a page
// that keeps asking for a blocked URL still settles.
import type { CDPSession, HTTPRequest, Protocol } from 'puppeteer-core';
import { disposer, traitedStep, type PageContext } from '../toolkit/step-shape.ts';
import type { StepLabel } from '../toolkit/step-names.ts';
import { Blocklist } from './rules.ts';
import { REFUSED_WEBSOCKET_URL, websocketGuard } from './websocket.ts';

/** How long a paused XHR waits for its Network type (which says fetch() or XMLHttpRequest) before it goes on. */
const NETWORK_TYPE_WAIT_MS = 250;

/** The Network resource type of each request of a session, by request id, as Network.requestWillBeSent tells it. */
function networkTypes(session: CDPSession): { typeOf(id: string | undefined): Promise<string>; dispose(): void } {
  const known = new Map<string, string>();
  const waiting = new Map<string, (type: string) => void>();
  const onSent = (e: Protocol.Network.RequestWillBeSentEvent) => {
    if (!e.type) return;
    const wake = waiting.get(e.requestId);
    if (wake) wake(e.type);
    else known.set(e.requestId, e.type);
  };
  session.on('Network.requestWillBeSent', onSent);
  return {
    typeOf(id) {
      const type = id === undefined ? 'XHR' : known.get(id);
      if (type !== undefined) {
        known.delete(id!);
        return Promise.resolve(type);
      }
      return new Promise((resolve) => {
        const timer = setTimeout(() => done('unknown'), NETWORK_TYPE_WAIT_MS);
        const done = (t: string) => {
          clearTimeout(timer);
          waiting.delete(id!);
          resolve(t);
        };
        waiting.set(id!, done);
      });
    },
    dispose: () => session.off('Network.requestWillBeSent', onSent),
  };
}

export interface Blocking {
  /** Whether the page's request is one this render refuses (never in flight for the idle waits). */
  ignores(r: HTTPRequest): boolean;
  /** Requests refused so far. */
  readonly count: number;
}

/** The part of the render's context this room writes: undefined when the request blocks nothing. */
export type BlockingContext = PageContext & { blocking?: Blocking };

/** The render step: arms the page before it loads anything; a request that blocks nothing costs nothing. */
const BLOCKING: StepLabel = { name: 'blocking', description: 'preparing request blocking' };

export const startBlocking = traitedStep<BlockingContext>({ times: [BLOCKING] }, async (ctx) => {
  const { page, client, req, deadline } = ctx;
  const list = Blocklist.of(req);
  if (!list) return;
  let count = 0;
  const offs: Array<() => void> = [];
  const patterns = list.fetchPatterns();
  const guard = list.websockets ? websocketGuard(list.websocketRule()) : undefined;

  const arm = (session: CDPSession, mainFrameId: string | undefined): Promise<unknown> => {
    const network = networkTypes(session);
    const onPaused = async (e: Protocol.Fetch.RequestPausedEvent) => {
      const mainDocument = e.resourceType === 'Document' && e.frameId === mainFrameId;
      let verdict = list.verdict(e.request.url, e.resourceType, mainDocument);
      if (verdict === 'ask') verdict = list.blocks(e.request.url, await network.typeOf(e.networkId), false) ? 'block' : 'continue';
      if (verdict === 'block') {
        count++;
        void session.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' }).catch(() => {});
      } else {
        void session.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {});
      }
    };
    const onAttached = (e: Protocol.Target.AttachedToTargetEvent) => {
      const child = session.connection()?.session(e.sessionId);
      if (child) void arm(child, undefined).catch(() => {});
    };
    const onSocket = (e: Protocol.Network.WebSocketCreatedEvent) => {
      if (e.url === REFUSED_WEBSOCKET_URL) count++;
    };
    const paused = (e: Protocol.Fetch.RequestPausedEvent) => void onPaused(e);
    session.on('Fetch.requestPaused', paused);
    session.on('Target.attachedToTarget', onAttached);
    session.on('Network.webSocketCreated', onSocket);
    offs.push(() => {
      session.off('Fetch.requestPaused', paused);
      session.off('Target.attachedToTarget', onAttached);
      session.off('Network.webSocketCreated', onSocket);
      network.dispose();
    });
    // Sent together, in this order: the browser runs a session's commands in order, so an attached
    // target waiting for us is released (runIfWaitingForDebugger) only once it is armed.
    const sent = [
      ...(patterns.length ? [session.send('Fetch.enable', { patterns })] : []),
      ...(guard || list.asksNetwork ? [session.send('Network.enable')] : []),
      ...(guard ? [session.send('Page.enable'), session.send('Page.addScriptToEvaluateOnNewDocument', { source: guard, runImmediately: true })] : []),
      session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{ type: 'iframe' }, { type: 'worker' }] }),
      ...(mainFrameId === undefined ? [session.send('Runtime.runIfWaitingForDebugger')] : []),
    ];
    return Promise.all(sent);
  };

  await deadline.step(BLOCKING, async () => {
    const { frameTree } = await client.send('Page.getFrameTree');
    await arm(client, frameTree.frame.id);
  });
  ctx.blocking = {
    ignores: (r) => list.blocks(r.url(), r.resourceType(), r.isNavigationRequest() && r.frame() === page.mainFrame()),
    get count() {
      return count;
    },
  };
  return disposer(() => offs.splice(0).forEach((off) => off()));
});
