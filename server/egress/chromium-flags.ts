// Chromium flags the egress guard needs (DESIGN §4, threat model "After the first hop").
// Each was checked on the Chromium we run (156.0.8078.79, headless-shell AND full chromium) by
// test/security/flags.test.ts, inside a network namespace, by observing canaries with and without
// the flag. What was measured is noted beside each flag.

export function egressLaunchArgs(proxyPort: number): string[] {
  if (!Number.isInteger(proxyPort) || proxyPort < 1 || proxyPort > 65535) throw new Error(`egress proxy port ${proxyPort} is not a port`);
  return [
    // Every request goes to the filtering proxy: http as absolute-URI requests; https, wss AND ws
    // as CONNECT tunnels (observed: Chromium tunnels plain ws:// too).
    `--proxy-server=http://127.0.0.1:${proxyPort}`,
    // Chromium bypasses any proxy for localhost, 127.0.0.0/8 and [::1] by default (measured: a page
    // reached a 127.0.0.1 canary directly). "<-loopback>" removes that rule: loopback is proxied,
    // and refused.
    '--proxy-bypass-list=<-loopback>',
    // HTTP/3 is UDP and cannot use an HTTP proxy. Measured without a proxy: forced QUIC sent UDP,
    // --disable-quic sent none. With the proxy no QUIC or WebTransport UDP was seen either; this is
    // the second lock.
    '--disable-quic',
    // WebRTC ignores the proxy: with the proxy alone a page sent STUN over UDP to its chosen server.
    // "disable_non_proxied_udp" stops it (measured: zero datagrams). headless-shell reads only the
    // "force-" spelling, full chromium only the other (each binary contains just its own; the wrong
    // one is ignored), so both are passed.
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    // Chromium's own resolver answers nothing, so no name is ever looked up outside the guard
    // (DNS prefetch, preconnect). Measured: zero DNS queries from Chromium while pages loaded by
    // name through the proxy, which resolves them itself. The proxy (127.0.0.1) is a literal.
    '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
  ];
}
