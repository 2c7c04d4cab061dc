// Egress guard (spec §4.1 rule 8, threat model, DESIGN §4). PLACEHOLDER: the egress issue replaces
// this with the real classifier, resolver and filtering proxy; the interface is what the rest uses.

export interface EgressOptions {
  /** Exact host:port origins treated as public (EGRESS_ALLOW; test fixtures only). */
  allow: string[];
}

export interface EgressGuard {
  /** Port of the in-process filtering proxy on 127.0.0.1 (Chromium gets --proxy-server). */
  readonly proxyPort: number;
  /**
   * The friendly pre-navigation check: throws TargetBlocked (400 bad_request) if the url's scheme
   * is not http(s), it has userinfo, or any address its host resolves to is not public;
   * NavigationFailed (502) when the name does not resolve.
   */
  checkUrl(url: string): Promise<void>;
  close(): Promise<void>;
}

export async function startEgressGuard(_opts: EgressOptions): Promise<EgressGuard> {
  return { proxyPort: 0, async checkUrl() {}, async close() {} };
}
