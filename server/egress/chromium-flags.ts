// Chromium flags the egress guard needs (DESIGN §4, threat model "After the first hop").
// Each was checked against the Chromium we run (156, headless-shell and full) by
// test/security/flags.test.ts inside a network namespace with canary listeners; the comment on
// each says what it closes.

export function egressLaunchArgs(proxyPort: number): string[] {
  if (!Number.isInteger(proxyPort) || proxyPort < 1 || proxyPort > 65535) throw new Error(`egress proxy port ${proxyPort} is not a port`);
  return [
    // Every request (http, https via CONNECT, ws/wss via CONNECT) goes to the filtering proxy.
    `--proxy-server=http://127.0.0.1:${proxyPort}`,
    // Chromium bypasses the proxy for localhost/127.0.0.0/8/[::1] by default; "<-loopback>" removes
    // that implicit rule so loopback targets are proxied (and refused) too.
    '--proxy-bypass-list=<-loopback>',
    // No HTTP/3 (QUIC is UDP and cannot go through an HTTP proxy); also stops WebTransport over H3.
    '--disable-quic',
    // WebRTC: no UDP that does not go through the proxy (i.e. none). headless-shell spells the
    // switch with "force-", full chromium without; each ignores the other's spelling.
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    // Chromium's own resolver answers nothing: with the proxy every name is resolved by the guard,
    // so this only stops stray lookups (DNS prefetch, preconnect) from leaking names.
    '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
  ];
}
