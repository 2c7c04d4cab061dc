// What a request's blockResourceTypes and blockUrls refuse, decided here: the browser's Fetch
// patterns pre-select the requests it pauses (so that every other request goes on without a round
// trip to us), `verdict()` decides for a paused one, and `blocks()` for the network-idle count, with
// the same rules. One catch: Fetch's interception calls both fetch() and XMLHttpRequest "XHR"
// (measured on Chromium 156: its XHR and Fetch filters each pause both), where the Network domain,
// which the idle count reads, tells them apart. So when only one of xhr and fetch is blocked, a
// paused XHR is decided by its Network type (verdict 'ask').
import type { Protocol } from 'puppeteer-core';
import type { ScreenshotRequest } from '../kinds/request.ts';
import type { BlockableType } from './fields.ts';

/** The protocol's resource types behind each blockable name (websocket: refused in the page, websocket.ts). */
const PROTOCOL_TYPES: Record<BlockableType, Protocol.Network.ResourceType[]> = {
  image: ['Image'],
  media: ['Media'],
  font: ['Font'],
  stylesheet: ['Stylesheet'],
  script: ['Script'],
  xhr: ['XHR'],
  fetch: ['Fetch'],
  websocket: [],
  // Everything else a page fetches, but never a document (the page itself, or a frame) or a CORS
  // preflight (it belongs to the fetch it precedes).
  other: ['Other', 'Ping', 'EventSource', 'CSPViolationReport', 'Manifest', 'TextTrack', 'Prefetch', 'SignedExchange'],
};

/**
 * The types Fetch.enable's filter knows (Chromium 156 refuses the others: Manifest, TextTrack,
 * Prefetch, SignedExchange, WebSocket). Its interception reports such requests as Other.
 */
const FETCH_FILTER_TYPES = new Set<Protocol.Network.ResourceType>([
  'Image',
  'Media',
  'Font',
  'Stylesheet',
  'Script',
  'XHR',
  'Fetch',
  'Other',
  'Ping',
  'EventSource',
  'CSPViolationReport',
]);

/** `*` any characters, everything else itself: as a regular expression over the whole URL. */
export function patternRegExp(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );
}

/** The same pattern for the browser's Fetch.enable, whose `?` is a wildcard and `\` its escape. */
export const fetchPattern = (pattern: string) => pattern.replace(/[\\?]/g, '\\$&');

export class Blocklist {
  private readonly types: Set<string>;
  readonly urls: RegExp[];
  readonly websockets: boolean;

  private constructor(private readonly req: ScreenshotRequest) {
    const types = req.blockResourceTypes ?? [];
    this.types = new Set(types.flatMap((t) => PROTOCOL_TYPES[t]).map((t) => t.toLowerCase()));
    this.urls = (req.blockUrls ?? []).map(patternRegExp);
    // A websocket is refused when its type is, or when a URL pattern could match ws(s):// URLs.
    this.websockets = types.includes('websocket') || this.urls.length > 0;
  }

  /** The request's blocklist, or undefined when it blocks nothing. */
  static of(req: ScreenshotRequest): Blocklist | undefined {
    return (req.blockResourceTypes?.length ?? 0) + (req.blockUrls?.length ?? 0) > 0 ? new Blocklist(req) : undefined;
  }

  /** Whether a request of this URL and Network resource type (any case) is refused. Documents of the main frame never are. */
  blocks(url: string, resourceType: string, mainDocument: boolean): boolean {
    if (mainDocument || /^(data|blob):/i.test(url)) return false;
    return this.types.has(resourceType.toLowerCase()) || this.urls.some((re) => re.test(url));
  }

  /** Whether xhr and fetch are blocked alike (then Fetch's common "XHR" type decides alone). */
  private get xhrAndFetchAlike(): boolean {
    return this.types.has('xhr') === this.types.has('fetch');
  }

  /** Whether a paused request needs its Network type before verdict() can answer (Network.enable is needed). */
  get asksNetwork(): boolean {
    return !this.xhrAndFetchAlike;
  }

  /** For a request Fetch paused (its Fetch resource type): block, continue, or ask its Network type (then blocks()). */
  verdict(url: string, fetchType: string, mainDocument: boolean): 'block' | 'continue' | 'ask' {
    if (mainDocument) return 'continue';
    if (this.urls.some((re) => re.test(url))) return 'block';
    if (fetchType === 'XHR' && !this.xhrAndFetchAlike) return 'ask';
    return this.types.has(fetchType.toLowerCase()) ? 'block' : 'continue';
  }

  /** What the page's websocket guard (websocket.ts) refuses: every websocket, or those whose URL matches. */
  websocketRule(): { all: boolean; urls: string[] } {
    return { all: this.req.blockResourceTypes?.includes('websocket') === true, urls: this.urls.map((re) => re.source) };
  }

  /** Fetch.enable's patterns: every request verdict() may block. */
  fetchPatterns(): Protocol.Fetch.RequestPattern[] {
    // Fetch's XHR filter pauses fetch() too: one filter serves xhr, fetch or both.
    const asFetchSees = (t: Protocol.Network.ResourceType): Protocol.Network.ResourceType => (t === 'Fetch' ? 'XHR' : t);
    const types = new Set(
      (this.req.blockResourceTypes ?? [])
        .flatMap((t) => PROTOCOL_TYPES[t])
        .filter((t) => FETCH_FILTER_TYPES.has(t))
        .map(asFetchSees),
    );
    const byType = [...types].map((resourceType) => ({ urlPattern: '*', resourceType, requestStage: 'Request' as const }));
    const byUrl = (this.req.blockUrls ?? []).map((p) => ({ urlPattern: fetchPattern(p), requestStage: 'Request' as const }));
    return [...byType, ...byUrl];
  }
}
