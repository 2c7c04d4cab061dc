// Main-frame hops after the first (redirects, meta refresh, script navigation, form submission):
// each is checked by the egress guard, and a blocked one ends the render at once in 400 naming it
// (DESIGN §3; spec §4.1 rule 8). The proxy refuses such connections whatever happens here; this
// module only turns the refusal into the clear error, fast, instead of a blank page or a timeout.
import type { HTTPRequest, HTTPResponse, Page } from 'puppeteer-core';
import { PROXY_REFUSAL_HEADER } from '../egress/proxy.ts';
import { NavigationFailed, ServiceError, TargetBlocked } from '../errors.ts';

/** Chromium's own refusals of a navigation target: these are blocked targets, not unreachable ones. */
const BLOCKED_NET_ERRORS = /net::(ERR_UNSAFE_REDIRECT|ERR_DISALLOWED_URL_SCHEME|ERR_UNSAFE_PORT|ERR_BLOCKED_BY_CLIENT|ERR_ACCESS_DENIED)/;

export class HopGuard {
  /** Rejects (TargetBlocked, or NavigationFailed when the proxy could not connect) as soon as a main-frame hop fails so; never resolves. */
  readonly blocked: Promise<never>;
  private reject!: (e: ServiceError) => void;
  private found: ServiceError | undefined;
  private readonly pending = new Set<Promise<void>>();
  private readonly detach: () => void;

  constructor(
    page: Page,
    private readonly checkUrl: (url: string) => Promise<string>,
    /** The url already checked before navigation (url mode). */
    private readonly first?: string,
  ) {
    this.blocked = new Promise<never>((_, reject) => (this.reject = reject));
    this.blocked.catch(() => {});
    const isMainNav = (r: HTTPRequest) => r.isNavigationRequest() && r.frame() === page.mainFrame();
    const onRequest = (r: HTTPRequest) => {
      if (!isMainNav(r)) return;
      const url = r.url();
      if (/^about:(blank|srcdoc)/i.test(url)) return;
      if (!/^https?:/i.test(url)) return this.block(`navigation to a ${url.split(':')[0]}: URL is not allowed; only http and https`);
      if (url !== this.first) this.recheck(url);
    };
    const onResponse = (res: HTTPResponse) => {
      if (!isMainNav(res.request()) || !res.headers()[PROXY_REFUSAL_HEADER]) return;
      // The proxy's own answers: 403 = refused by policy; anything else (502) = could not connect.
      if (res.status() === 403) this.block(`navigation to ${hostOf(res.url())} was refused by the egress guard: not a public address`);
      else this.fail(new NavigationFailed(`could not load ${res.url().split(/[?#]/)[0]}: the connection to ${hostOf(res.url())} failed`));
    };
    const onFailed = (r: HTTPRequest) => {
      if (!isMainNav(r)) return;
      const err = r.failure()?.errorText ?? '';
      if (BLOCKED_NET_ERRORS.test(err)) this.block(`navigation to ${r.url().split(/[?#]/)[0]} was blocked (${err})`);
      else if (/ERR_TUNNEL_CONNECTION_FAILED/.test(err)) this.recheck(r.url()); // the proxy refused: ask why
    };
    page.on('request', onRequest);
    page.on('response', onResponse);
    page.on('requestfailed', onFailed);
    this.detach = () => {
      page.off('request', onRequest);
      page.off('response', onResponse);
      page.off('requestfailed', onFailed);
    };
  }

  private block(message: string): void {
    this.fail(new TargetBlocked(message));
  }

  private fail(e: ServiceError): void {
    if (this.found) return;
    this.found = e;
    this.reject(e);
  }

  private recheck(url: string): void {
    const p = this.checkUrl(url).then(
      () => {},
      (e) => {
        if (e instanceof TargetBlocked) this.block(`navigation went to a blocked target: ${e.message}`);
      },
    );
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Races a step against a blocked hop. */
  guard<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.blocked]);
  }

  /** After a failed navigation: the blocked hop if there was one (pending checks settled), else the failure. */
  async explain(e: unknown, url: string): Promise<ServiceError> {
    await Promise.all(this.pending);
    if (this.found) return this.found;
    if (e instanceof ServiceError) return e;
    const msg = e instanceof Error ? e.message : String(e);
    if (BLOCKED_NET_ERRORS.test(msg)) return new TargetBlocked(`navigation from ${url} was blocked (${/net::ERR_[A-Z_]+/.exec(msg)?.[0]})`);
    const net = /net::(ERR_[A-Z_]+)/.exec(msg)?.[1];
    if (net) return new NavigationFailed(`could not load ${url}: ${net}`);
    return new NavigationFailed(`could not load ${url}: ${msg.split('\n')[0]}`);
  }

  dispose(): void {
    this.detach();
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
