// Attack pages for the battery (threat model "After the first hop"), as plain HTML so that the same
// markup is served by the fixture site (url mode) and posted as `html` (html mode).
// Every page tries to reach `to`, an internal target; canaries there must see zero connections and
// the egress proxy must record the refusal.

const q = (s: string) => JSON.stringify(s); // JS string literal
const a = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;'); // attribute

/** Subresource and in-page request kinds: the page renders (200) and the load fails. */
export const SUBRESOURCE_KINDS = {
  img: (to: string) => `<img src="${a(to)}" width=10 height=10>`,
  script: (to: string) => `<script src="${a(to)}"></script>`,
  stylesheet: (to: string) => `<link rel=stylesheet href="${a(to)}">`,
  cssImport: (to: string) => `<style>@import url(${q(to)});</style>`,
  fontFace: (to: string) => `<style>@font-face{font-family:evil;src:url(${q(to)})} p{font-family:evil}</style><p>text in the font</p>`,
  cssBackground: (to: string) => `<div style="width:20px;height:20px;background-image:url(${a(q(to))})"></div>`,
  video: (to: string) => `<video src="${a(to)}" autoplay muted preload=auto></video>`,
  audio: (to: string) => `<audio src="${a(to)}" preload=auto></audio>`,
  object: (to: string) => `<object data="${a(to)}" width=20 height=20></object>`,
  embed: (to: string) => `<embed src="${a(to)}" width=20 height=20>`,
  svgImage: (to: string) => `<svg width=20 height=20><image href="${a(to)}" width=20 height=20 /></svg>`,
  iframe: (to: string) => `<iframe src="${a(to)}" width=200 height=100></iframe>`,
  fetch: (to: string) => `<script>fetch(${q(to)}, { mode: 'no-cors' }).catch(() => {})</script>`,
  xhr: (to: string) => `<script>const x = new XMLHttpRequest(); x.open('GET', ${q(to)}); x.send();</script>`,
  beacon: (to: string) => `<script>navigator.sendBeacon(${q(to)}, 'x')</script>`,
  eventSource: (to: string) => `<script>const es = new EventSource(${q(to)}); es.onerror = () => es.close();</script>`,
  webSocket: (to: string) => `<script>try { new WebSocket(${q(to.replace(/^http/, 'ws'))}) } catch {}</script>`,
  webSocketTls: (to: string) => `<script>try { new WebSocket(${q(to.replace(/^https?/, 'wss'))}) } catch {}</script>`,
  httpsImg: (to: string) => `<img src="${a(to.replace(/^http:/, 'https:'))}" width=10 height=10>`,
  worker: (to: string) => `<script>new Worker(URL.createObjectURL(new Blob([${q(`fetch(${q(to)}).catch(()=>{})`)}], { type: 'text/javascript' })))</script>`,
  workerImportScripts: (to: string) =>
    `<script>new Worker(URL.createObjectURL(new Blob([${q(`try { importScripts(${q(to)}) } catch (e) {}`)}], { type: 'text/javascript' })))</script>`,
  sharedWorker: (to: string) =>
    `<script>try { new SharedWorker(URL.createObjectURL(new Blob([${q(`fetch(${q(to)}).catch(()=>{})`)}], { type: 'text/javascript' }))) } catch {}</script>`,
  prefetch: (to: string) => `<link rel=prefetch href="${a(to)}"><link rel=preload as=image href="${a(to)}x">`,
  baseHref: (to: string) => `<base href="${a(to)}"><img src="relative.png" width=10 height=10>`,
  popup: (to: string) => `<script>window.open(${q(to)})</script>`,
  formTargetFrame: (to: string) =>
    `<iframe name=f></iframe><form action="${a(to)}" method=post target=f><input name=a value=1></form><script>document.forms[0].submit()</script>`,
  /** Not a request the proxy sees (preconnect goes to the proxy itself); canaries must stay silent. */
  preconnect: (to: string) => `<link rel=preconnect href="${a(to)}"><link rel=dns-prefetch href="${a(to)}">`,
} as const;
export type SubresourceKind = keyof typeof SUBRESOURCE_KINDS;
/** Kinds that cannot be seen as a proxy refusal (nothing is requested through the proxy). */
export const SILENT_KINDS: ReadonlySet<SubresourceKind> = new Set(['preconnect']);
/** Kinds that reach the target over CONNECT (https/wss/ws) rather than absolute-URI HTTP. */
export const CONNECT_KINDS: ReadonlySet<SubresourceKind> = new Set(['webSocket', 'webSocketTls', 'httpsImg']);

/** Main-frame navigations after the first: the render must end in 400 naming the target. */
export const NAVIGATION_KINDS = {
  metaRefresh: (to: string) => `<meta http-equiv=refresh content="0;url=${a(to)}">`,
  jsLocation: (to: string) => `<script>location.href = ${q(to)}</script>`,
  jsAssign: (to: string) => `<script>setTimeout(() => location.assign(${q(to)}), 50)</script>`,
  formAutoSubmit: (to: string) => `<form action="${a(to)}" method=post><input name=a value=1></form><script>document.forms[0].submit()</script>`,
  linkClick: (to: string) => `<a id=l href="${a(to)}">x</a><script>document.getElementById('l').click()</script>`,
} as const;
export type NavigationKind = keyof typeof NAVIGATION_KINDS;

/** WebRTC (STUN and TURN over UDP) and WebTransport (HTTP/3, UDP) towards `hosts` (comma-separated). */
export function udpProbe(hosts: string): string {
  const list = hosts.split(',').filter(Boolean);
  const stun = JSON.stringify(list.map((h) => `stun:${h.includes(':') ? `[${h}]` : h}:3478`));
  const turn = JSON.stringify(list.map((h) => `turn:${h.includes(':') ? `[${h}]` : h}:3478?transport=udp`));
  const wt = list.map((h) => `try { new WebTransport('https://${h.includes(':') ? `[${h}]` : h}:443/').ready.catch(() => {}); } catch {}`).join('\n');
  return `<script>
const pc = new RTCPeerConnection({ iceServers: [{ urls: ${stun} }, { urls: ${turn}, username: 'u', credential: 'p' }] });
pc.createDataChannel('x');
pc.createOffer().then((o) => pc.setLocalDescription(o));
${wt}
</script>`;
}

export function page(body: string, title = 'attack'): string {
  return `<!doctype html><html><head><meta charset=utf-8><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
}
