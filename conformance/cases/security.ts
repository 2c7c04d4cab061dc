// Security profile: the threat model's classes (shared/security/threat-model.md), observed with
// canary listeners on loopback that must see zero connections. Needs the suite's fixture server and
// canaries reachable by the implementation (same host). Off-machine address classes additionally
// need --isolated-network: never send them to an implementation that could reach a real network.
import type { CaseSpec, CanarySpelling } from '../model/model.ts';
import { absent, box, BUDGET_PLUS_SLACK_MS, color, GREEN, html, MAGENTA, png } from './helpers.ts';

const VP = { width: 320, height: 240 };
const noCanary = [absent(box(0, 0, 320, 240), MAGENTA, 'no canary content')];

function spelling(s: CanarySpelling): CaseSpec {
  return {
    id: `sec.spelling.${s}`,
    must: `The service MUST reject the loopback canary written as "${s}" with 400 bad_request and never connect to it.`,
    rules: ['T/spellings', '4.1/rule-8', '1/private-targets'],
    needs: ['canary'],
    request: { body: { url: { $canaryUrl: '/spelling', spelling: s }, viewport: VP } },
    expect: { status: 400, error: 'bad_request', canaryConnections: 0 },
  };
}

function rawTarget(id: string, url: string, rules: string[], must: string): CaseSpec {
  return {
    id,
    must,
    rules,
    needs: ['canary'],
    request: { body: { url: { $template: url }, viewport: VP } },
    expect: { status: 400, error: 'bad_request', canaryConnections: 0 },
  };
}

function redirect(status: number): CaseSpec {
  return {
    id: `sec.redirect.${status}`,
    must: `The service MUST NOT follow a ${status} redirect to a loopback address.`,
    rules: ['T/after-first-hop', '1/private-targets'],
    needs: ['fixtures', 'canary'],
    request: { body: { url: { $template: `{{fixtures:/redirect?status=${status}&to=}}{{canary:/r${status}}}` }, viewport: VP } },
    expect: { status: [400, 502], canaryConnections: 0 },
  };
}

/** An html page that points one kind of subresource at the canary: 200, the page rendered, no connection. */
function subresource(kind: string, markup: string): CaseSpec {
  return {
    id: `sec.html-subresource.${kind}`,
    must: `The service MUST NOT let a ${kind} in supplied html connect to a loopback address.`,
    rules: ['T/subresources'],
    needs: ['canary'],
    request: {
      body: {
        html: { $template: `<!doctype html><html><head><style>html,body{margin:0;height:100%;background:#20a040}</style></head><body>${markup}</body></html>` },
        viewport: VP,
        waitUntil: 'networkidle0',
      },
    },
    expect: png(320, 240, [color(box(200, 150, 100, 80), GREEN, 'page rendered'), ...noCanary], { canaryConnections: 0 }),
  };
}

function navigation(kind: string, markup: string): CaseSpec {
  return {
    id: `sec.html-navigation.${kind}`,
    must: `The service MUST NOT let a ${kind} in supplied html navigate to a loopback address.`,
    rules: ['T/after-first-hop'],
    needs: ['canary'],
    request: {
      body: {
        html: {
          $template: `<!doctype html><html><head>${markup.startsWith('<meta') || markup.startsWith('<base') ? markup : ''}<style>html,body{margin:0;height:100%;background:#20a040}</style></head><body>${markup.startsWith('<meta') || markup.startsWith('<base') ? '' : markup}</body></html>`,
        },
        viewport: VP,
        waitUntil: 'load',
      },
    },
    expect: { status: [200, 400], canaryConnections: 0 },
  };
}

function offMachine(name: string, url: string): CaseSpec {
  return {
    id: `sec.address.${name}`,
    must: `The service MUST reject ${url} (${name}) with 400 bad_request before connecting.`,
    rules: ['T/address-classes', '4.1/rule-8', '1/private-targets'],
    needs: ['isolatedNetwork'],
    request: { body: { url, viewport: VP } },
    // no time bound: in the isolated namespace a connection attempt fails at once (502, not 400)
    expect: { status: 400, error: 'bad_request' },
  };
}

export const securityCases: CaseSpec[] = [
  ...(['localhost', 'decimal', 'hex', 'octal', 'short', 'ipv6', 'mapped', 'trailing-dot', 'userinfo', 'upper-scheme'] as CanarySpelling[]).map(spelling),
  rawTarget(
    'sec.spelling.unspecified-v4',
    'http://0.0.0.0:{{canaryPort}}/',
    ['T/spellings', 'T/address-classes'],
    'The service MUST reject 0.0.0.0 (reaches the local host) with 400 bad_request.',
  ),
  rawTarget(
    'sec.spelling.unspecified-v6',
    'http://[::]:{{canaryPort}}/',
    ['T/spellings', 'T/address-classes'],
    'The service MUST reject [::] with 400 bad_request.',
  ),
  rawTarget(
    'sec.spelling.backslash',
    'http:\\\\127.0.0.1:{{canaryPort}}\\x',
    ['T/spellings'],
    'The service MUST classify a backslash-spelled loopback URL after parsing and reject it.',
  ),
  rawTarget(
    'sec.spelling.localhost-subdomain',
    'http://conformance.localhost:{{canaryPort}}/',
    ['T/spellings'],
    'The service MUST reject *.localhost names with 400 bad_request.',
  ),
  rawTarget('sec.scheme.ftp', 'ftp://127.0.0.1:{{canaryPort}}/', ['T/schemes', '2.1/url'], 'The service MUST reject an ftp: url with 400 bad_request.'),
  rawTarget('sec.scheme.ws', 'ws://127.0.0.1:{{canaryPort}}/', ['T/schemes', '2.1/url'], 'The service MUST reject a ws: url with 400 bad_request.'),
  rawTarget(
    'sec.scheme.view-source',
    'view-source:http://127.0.0.1:{{canaryPort}}/',
    ['T/schemes'],
    'The service MUST reject a view-source: url with 400 bad_request.',
  ),
  rawTarget('sec.scheme.file-upper', 'FILE:///etc/passwd', ['T/schemes'], 'The service MUST reject FILE: in any case with 400 bad_request.'),
  rawTarget('sec.scheme.chrome', 'chrome://version/', ['T/schemes'], 'The service MUST reject a chrome: url with 400 bad_request.'),
  rawTarget('sec.scheme.relative', '//127.0.0.1:{{canaryPort}}/', ['T/schemes'], 'The service MUST reject a scheme-relative url with 400 bad_request.'),

  ...[301, 302, 303, 307, 308].map(redirect),

  subresource('img', '<img src="{{canary:/img.png}}">'),
  subresource('srcset', '<img srcset="{{canary:/srcset.png}} 1x">'),
  subresource('css-background', '<div style="width:10px;height:10px;background:url({{canary:/bg.png}})"></div>'),
  subresource('stylesheet', '<link rel="stylesheet" href="{{canary:/style.css}}">'),
  subresource('css-import', '<style>@import url("{{canary:/import.css}}");</style>'),
  subresource('font-face', '<style>@font-face{font-family:x;src:url({{canary:/font.woff2}})}</style><p style="font-family:x">x</p>'),
  subresource('script', '<script src="{{canary:/script.js}}"></script>'),
  subresource('iframe', '<iframe src="{{canary:/frame.html}}" style="width:320px;height:120px;border:0"></iframe>'),
  subresource('object', '<object data="{{canary:/object}}" style="width:100px;height:50px"></object>'),
  subresource('embed', '<embed src="{{canary:/embed}}" style="width:100px;height:50px">'),
  subresource('video', '<video src="{{canary:/video.mp4}}" autoplay muted></video>'),
  subresource('svg-image', '<svg width="10" height="10"><image href="{{canary:/svg.png}}" width="10" height="10"/></svg>'),
  subresource('fetch', '<script>fetch("{{canary:/fetch}}",{mode:"no-cors"}).catch(()=>{})</script>'),
  subresource('xhr', '<script>try{const x=new XMLHttpRequest();x.open("GET","{{canary:/xhr}}");x.send()}catch(e){}</script>'),
  subresource('beacon', '<script>try{navigator.sendBeacon("{{canary:/beacon}}","x")}catch(e){}</script>'),
  subresource('eventsource', '<script>try{new EventSource("{{canary:/events}}")}catch(e){}</script>'),
  subresource('websocket', '<script>try{new WebSocket("ws://127.0.0.1:{{canaryPort}}/ws")}catch(e){}</script>'),
  subresource('prefetch', '<link rel="prefetch" href="{{canary:/prefetch}}"><link rel="preconnect" href="{{canary}}">'),
  {
    id: 'sec.url-subresources',
    must: 'The service MUST NOT let the subresources of a public page (img, iframe, script, css, fetch, XHR, beacon, WebSocket) connect to a loopback address.',
    rules: ['T/subresources', '1/private-targets'],
    needs: ['fixtures', 'canary'],
    request: { body: { url: { $template: '{{fixtures:/pages/subresources.html?canary=}}{{canary}}' }, viewport: VP, waitUntil: 'networkidle0' } },
    expect: png(320, 240, [color(box(200, 150, 100, 80), GREEN, 'page rendered'), ...noCanary], { canaryConnections: 0 }),
  },

  navigation('meta-refresh', '<meta http-equiv="refresh" content="0;url={{canary:/meta}}">'),
  navigation('script-location', '<script>location.href="{{canary:/location}}"</script>'),
  navigation('window-open', '<script>window.open("{{canary:/popup}}")</script>'),
  navigation(
    'form-submit',
    '<form id="f" action="{{canary:/form}}" method="post"><input name="a" value="b"></form><script>document.getElementById("f").submit()</script>',
  ),
  navigation('base-href', '<base href="{{canary:/base/}}"><img src="x.png">'),

  {
    id: 'sec.isolation.fresh-context',
    must: 'The service MUST render every request in a fresh context: cookies and storage from an earlier request are not visible.',
    rules: ['T/isolation'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: '/pages/cookie-isolation.html?n=1' }, viewport: VP }, headers: { 'cache-control': 'no-cache' } },
    expect: png(320, 240, [color(box(0, 0, 320, 240), GREEN, 'fresh context')]),
    then: [
      {
        request: { body: { url: { $fixtureUrl: '/pages/cookie-isolation.html?n=2' }, viewport: VP }, headers: { 'cache-control': 'no-cache' } },
        expect: png(320, 240, [color(box(0, 0, 320, 240), GREEN, 'fresh context again')]),
      },
    ],
  },
  {
    id: 'sec.dos.dialogs-and-popups',
    must: 'The service MUST dismiss dialogs and popups and still capture the page within the budget.',
    rules: ['T/dos'],
    request: { body: html('dialogs', { viewport: VP, waitUntil: 'load' }) },
    expect: png(320, 240, [color(box(0, 0, 320, 240), GREEN)], { maxDurationMs: BUDGET_PLUS_SLACK_MS }),
  },
  {
    id: 'sec.dos.busy-loop',
    must: 'The service MUST end a render whose page loops forever within the budget with an error, and serve the next request normally.',
    rules: ['T/dos', '8/render-budget'],
    heavy: true,
    timeoutMs: 90_000,
    request: { body: html('busy-loop', { viewport: VP }) },
    expect: { status: [500, 504], maxDurationMs: BUDGET_PLUS_SLACK_MS },
    then: [{ request: { body: html('plain', { viewport: VP }) }, expect: png(320, 240, [color(box(0, 0, 320, 240), GREEN)]) }],
  },

  offMachine('metadata-ipv4', 'http://169.254.169.254/latest/meta-data/'),
  offMachine('metadata-alibaba', 'http://100.100.100.200/latest/meta-data/'),
  offMachine('rfc1918-10', 'http://10.0.0.1/'),
  offMachine('rfc1918-172', 'http://172.16.0.1/'),
  offMachine('rfc1918-192', 'http://192.168.1.1/'),
  offMachine('cgnat', 'http://100.64.0.1/'),
  offMachine('link-local-v6', 'http://[fe80::1]/'),
  offMachine('unique-local-v6', 'http://[fd00::1]/'),
  offMachine('mapped-private', 'http://[::ffff:10.0.0.1]/'),
  offMachine('nat64-private', 'http://[64:ff9b::a00:1]/'),
  offMachine('metadata-name', 'http://metadata.google.internal/computeMetadata/v1/'),
];
