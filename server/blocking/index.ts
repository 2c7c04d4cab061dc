// Request blocking (blockResourceTypes, blockUrls): the page's requests of those types or URLs are
// refused inside the browser, before they are sent, in every frame, and counted (x-blocked-requests).
//
// How: the render's own CDP session enables the Fetch domain with patterns (rules.ts), so the
// browser pauses only the requests a pattern may match and hands them to us to fail
// (BlockedByClient); every other request goes on without a round trip, so blocking costs nothing
// on what it does not block (measured in `npm run bench`, section blocking). Puppeteer's own
// request interception (headers, cookies: server/page-env/) is another session's and chains after
// ours: a blocked request never reaches it. Out-of-process frames and workers are other targets:
// the session auto-attaches to each (paused until armed), arms it the same way and lets it run.
// Websockets are refused in the page (websocket.ts).
//
// Blocking only ever takes requests away: what is not blocked still goes through the egress guard
// (the proxy every connection of the browser uses, DESIGN §4). Blocked requests are never counted
// as in flight by the network-idle waits (ignores(), server/render/network-idle.ts), so a page
// that keeps asking for a blocked URL still settles.
import type { CDPSession, HTTPRequest, Page, Protocol } from 'puppeteer-core';
import type { Deadline } from '../render/deadline.ts';
import type { ScreenshotRequest } from '../request/schema.ts';
import { Blocklist } from './rules.ts';
import { REFUSED_WEBSOCKET_URL, websocketGuard } from './websocket.ts';

export interface Blocking {
  /** Whether the page's request is one this render refuses (never in flight for the idle waits). */
  ignores(r: HTTPRequest): boolean;
  /** Requests refused so far. */
  readonly count: number;
  dispose(): void;
}

const NOTHING: Blocking = { ignores: () => false, count: 0, dispose() {} };

/** Arms the page before it loads anything; a request that blocks nothing costs nothing. */
export async function startBlocking(page: Page, client: CDPSession, req: ScreenshotRequest, deadline: Deadline): Promise<Blocking> {
  const list = Blocklist.of(req);
  if (!list) return NOTHING;
  let count = 0;
  const offs: Array<() => void> = [];
  const patterns = list.fetchPatterns();
  const guard = list.websockets ? websocketGuard(list.websocketRule()) : undefined;

  const arm = (session: CDPSession, mainFrameId: string | undefined): Promise<unknown> => {
    const onPaused = (e: Protocol.Fetch.RequestPausedEvent) => {
      const mainDocument = e.resourceType === 'Document' && e.frameId === mainFrameId;
      if (list.blocks(e.request.url, e.resourceType, mainDocument)) {
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
    session.on('Fetch.requestPaused', onPaused);
    session.on('Target.attachedToTarget', onAttached);
    session.on('Network.webSocketCreated', onSocket);
    offs.push(() => {
      session.off('Fetch.requestPaused', onPaused);
      session.off('Target.attachedToTarget', onAttached);
      session.off('Network.webSocketCreated', onSocket);
    });
    // Sent together, in this order: the browser runs a session's commands in order, so an attached
    // target waiting for us is released (runIfWaitingForDebugger) only once it is armed.
    const sent = [
      ...(patterns.length ? [session.send('Fetch.enable', { patterns })] : []),
      ...(guard ? [session.send('Page.enable'), session.send('Network.enable'), session.send('Page.addScriptToEvaluateOnNewDocument', { source: guard, runImmediately: true })] : []),
      session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{ type: 'iframe' }, { type: 'worker' }] }),
      ...(mainFrameId === undefined ? [session.send('Runtime.runIfWaitingForDebugger')] : []),
    ];
    return Promise.all(sent);
  };

  await deadline.step('blocking', async () => {
    const { frameTree } = await client.send('Page.getFrameTree');
    await arm(client, frameTree.frame.id);
  });
  return {
    ignores: (r) => list.blocks(r.url(), r.resourceType(), r.isNavigationRequest() && r.frame() === page.mainFrame()),
    get count() {
      return count;
    },
    dispose: () => offs.splice(0).forEach((off) => off()),
  };
}
