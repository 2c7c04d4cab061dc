// Refusing websockets. The browser's request interception (Fetch) and blocked-URL list never see a
// websocket handshake (measured on Chromium 156: both let `new WebSocket()` connect), so the page
// refuses them itself: in every document, before its own scripts, WebSocket is wrapped so that a
// refused URL opens `ws://127.0.0.1:1/...` instead. Port 1 is on the browser's own list of unsafe
// ports, refused before any connection is attempted: the page gets a real WebSocket that fails
// (error, then close), as for any blocked socket, and the protocol's webSocketCreated event with
// that URL lets the server count it. A convenience, not a security boundary: a page that insists
// can still reach its socket through the egress guard, which decides what leaves (DESIGN §4).

/** The URL a refused websocket opens instead (counted by the server when the page creates it). */
export const REFUSED_WEBSOCKET_URL = 'ws://127.0.0.1:1/refused-by-capture-request';

/** The in-page guard for `rule` (Blocklist.websocketRule()): plain browser JavaScript, as source text. */
export function websocketGuard(rule: { all: boolean; urls: string[] }): string {
  return `(() => {
  const Native = window.WebSocket;
  if (!Native || Native[Symbol.for('screenshot-service/refused')]) return;
  const all = ${JSON.stringify(rule.all)};
  const patterns = ${JSON.stringify(rule.urls)}.map((s) => new RegExp(s, 's'));
  const refused = (raw) => {
    if (all) return true;
    try {
      const u = new URL(String(raw), location.href);
      if (u.protocol === 'http:') u.protocol = 'ws:';
      if (u.protocol === 'https:') u.protocol = 'wss:';
      return patterns.some((re) => re.test(u.href));
    } catch (e) {
      return false;
    }
  };
  window.WebSocket = new Proxy(Native, {
    construct(target, args, newTarget) {
      return Reflect.construct(target, refused(args[0]) ? [${JSON.stringify(REFUSED_WEBSOCKET_URL)}] : args, newTarget);
    },
    get(target, key, receiver) {
      return key === Symbol.for('screenshot-service/refused') ? true : Reflect.get(target, key, receiver);
    },
  });
})();`;
}
