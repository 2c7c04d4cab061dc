// Every environment variable the server reads: its default, its bounds and what it means, stated
// once. server/config.ts parses them into a Config; the configuration reference
// (docs/configuration.md) is generated from this table, so a variable cannot be added without
// its documentation (test/docs/generated.test.ts).
import { CACHE_TTL_MAX_SECONDS, RENDER_BUDGET_MAX_MS } from './kinds/request.ts';
import { DEFAULT_SANDBOX } from './sandbox/index.ts';

export interface IntSetting {
  kind: 'int';
  default: number;
  min: number;
  max: number;
  doc: string;
}
export interface TextSetting {
  kind: 'text';
  /** What an unset variable means, as the documentation shows it ('' = nothing: the feature is off). */
  default: string;
  doc: string;
}
export type Setting = IntSetting | TextSetting;

const int = (def: number, min: number, max: number, doc: string): IntSetting => ({ kind: 'int', default: def, min, max, doc });
const text = (def: string, doc: string): TextSetting => ({ kind: 'text', default: def, doc });

export const SETTINGS = {
  PORT: int(3000, 0, 65535, 'listen port; `0` picks a free one (the log says which)'),
  HOST: text('0.0.0.0', 'listen address'),
  CHROMIUM_PATH: text('found by `scripts/setup-browser.sh`', 'the browser binary'),
  API_KEYS: text(
    '',
    'comma-separated keys accepted as valid, each starting with the free allowance (development, CI); 16 to 200 characters of `[A-Za-z0-9._~+/=-]` each',
  ),
  DATA_DIR: text('./data', 'where the embedded store (PGlite) keeps its files, and the development key'),
  DATABASE_URL: text(
    '',
    'a PostgreSQL URL (`postgres://`); when set, the ledger, keys, rate limits, signed-link secrets and result cache live there (replicas share them)',
  ),
  EGRESS_ALLOW: text('', 'comma-separated exact `host:port` origins treated as public. Test fixtures only; off by default; logged loudly at start'),
  RENDER_CONCURRENCY: int(2, 1, 64, 'renders at once (see the bench: more than the CPU sustains only adds latency)'),
  QUEUE_LIMIT: int(32, 0, 10000, 'renders waiting for a slot before 503 `overloaded`'),
  BROWSER_RECYCLE_AFTER: int(500, 1, 1_000_000, 'renders before the browser process is replaced'),
  BROWSER_SANDBOX: text(
    DEFAULT_SANDBOX.mode,
    "Chromium's sandbox: `auto` = on wherever it starts, else a `WARN` line naming the reason at every browser launch and the browser runs without it; `require` = on, or the server does not start; `off` = never (`--no-sandbox`, as root too)",
  ),
  BROWSER_SANDBOX_USER: text(
    `${DEFAULT_SANDBOX.uid}:${DEFAULT_SANDBOX.gid}`,
    'numeric `uid:gid` (not root) Chromium runs as when the server runs as root, so that its sandbox can be on (`nobody:nogroup` on Debian; a dedicated user is better). `TMPDIR` must be searchable by it',
  ),
  RENDER_BUDGET_MS: int(
    RENDER_BUDGET_MAX_MS,
    1000,
    RENDER_BUDGET_MAX_MS,
    `the render budget (spec §8: ${RENDER_BUDGET_MAX_MS / 1000} s; lower only for tests)`,
  ),
  MAX_OUTPUT_PIXELS: int(100_000_000, 1, 1_000_000_000, 'output-size ceiling in pixels'),
  CACHE_TTL_SECONDS: int(300, 0, CACHE_TTL_MAX_SECONDS, 'url-mode result cache lifetime: the `cacheTtl` of a request that gives none (0 = the cache is off)'),
  CACHE_MAX_BYTES: int(
    128 * 1024 * 1024,
    0,
    2 ** 40,
    'result cache size bound, for all replicas together (it lives in the store; least recently used evicted first; 0 = off)',
  ),
  DRAIN_SECONDS: int(
    0,
    0,
    300,
    "after SIGTERM, how long `/readyz` answers 503 while requests are still served, before the listener closes (set it above your balancer's time to notice: 5 behind the shipped HAProxy)",
  ),
  RATE_LIMIT_PER_MINUTE: int(120, 0, 1_000_000, 'requests per key per minute (0 = off)'),
  FREE_CREDITS: int(100, 0, 1_000_000_000, 'credits a new key starts with (spec §1: 100)'),
  LOG_LEVEL: text('info', 'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`; request bodies and keys are never logged'),
  // OpenTelemetry traces (server/telemetry/, docs/operations.md "Traces"): the standard OTEL_* variables.
  OTEL_EXPORTER_OTLP_ENDPOINT: text(
    '',
    "the OTLP/HTTP base URL of a collector (`http://otel-collector:4318`): traces are sent to its `/v1/traces`. Empty (and no `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) = tracing off: the SDK is not even loaded. The exporter also reads `OTEL_EXPORTER_OTLP_HEADERS` (a collector's token: `key=value,...`) itself",
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: text('', 'the full OTLP/HTTP traces URL, used as given; overrides `OTEL_EXPORTER_OTLP_ENDPOINT`'),
  OTEL_EXPORTER_OTLP_PROTOCOL: text('http/protobuf', 'the OTLP encoding: `http/protobuf` or `http/json` (`grpc` is not offered)'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: text('', 'the same for traces alone; overrides `OTEL_EXPORTER_OTLP_PROTOCOL`'),
  OTEL_SERVICE_NAME: text('screenshot-service', 'the `service.name` of every span; `OTEL_RESOURCE_ATTRIBUTES` (`key=value,...`) adds resource attributes'),
  OTEL_TRACES_SAMPLER: text(
    'parentbased_always_on',
    "`always_on`, `always_off`, `traceidratio`, `parentbased_always_on`, `parentbased_always_off` or `parentbased_traceidratio` (parent-based: a caller's `traceparent` decides)",
  ),
  OTEL_TRACES_SAMPLER_ARG: text('1', 'the ratio of the `traceidratio` samplers, 0 to 1'),
  OTEL_BSP_SCHEDULE_DELAY: int(5000, 0, 3_600_000, 'milliseconds between two exports of the spans ended since'),
  OTEL_BSP_EXPORT_TIMEOUT: int(30_000, 1, 600_000, 'milliseconds one export may take before it is abandoned'),
  OTEL_BSP_MAX_QUEUE_SIZE: int(2048, 1, 1_000_000, 'spans kept waiting for export; beyond, new spans are dropped (the service never waits for the collector)'),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: int(512, 1, 1_000_000, 'spans per export, at most `OTEL_BSP_MAX_QUEUE_SIZE`'),
  OTEL_SDK_DISABLED: text('false', '`true`: tracing off whatever the endpoint'),
  LINK_SIGNING_KEK: text(
    '',
    'the key-encryption key that seals the signing secrets of signed links: 32 random bytes as 64 hex characters or base64 (`openssl rand -hex 32`). Required for signed links with `DATABASE_URL`; with the embedded store, `DATA_DIR/link-signing.kek` (0600) is created when unset',
  ),
  CORS_ORIGINS: text(
    '',
    'comma-separated exact origins (`https://app.example.com`) whose web pages may call the API from a browser, or `*` alone for any page; empty = no cross-origin access',
  ),
  HTTP_HEADERS_TIMEOUT_MS: int(
    10_000,
    100,
    600_000,
    'the request line and headers must arrive within this (slowloris); then the connection is closed (Node answers 408). 10 s is ample for any real client, even on a slow mobile link',
  ),
  HTTP_REQUEST_TIMEOUT_MS: int(
    30_000,
    100,
    600_000,
    'the whole request, body included, must arrive within this (at least `HTTP_HEADERS_TIMEOUT_MS`): the largest body, 2 MB of `html`, needs about 550 kbit/s. It never limits the render or the response',
  ),
  HTTP_KEEPALIVE_TIMEOUT_MS: int(
    5_000,
    100,
    600_000,
    "a kept-alive connection with no request is closed after this (Node's default; above it only idle sockets pile up, below it clients reconnect more)",
  ),
  HTTP_IDLE_TIMEOUT_MS: int(
    10_000,
    100,
    600_000,
    'a connection on which nothing moves for this long while the client is the one to act (a stalled request body; a client that stops reading its answer) is closed; never while its request is being rendered (the render budget bounds that). A connection that sends nothing at all is cut by `HTTP_HEADERS_TIMEOUT_MS`',
  ),
  MAX_CONNECTIONS_PER_IP: int(
    64,
    0,
    1_000_000,
    "connections one client address may hold at once; beyond, a new connection first closes that address's oldest kept-alive connection waiting between requests (a client's idle pool is never the reason it is refused); without one the new connection is closed at once, before it is read, and counted as `screenshot_rejections_total{reason=\"connection_limit\"}` (0 = no limit). Behind a balancer every connection comes from its address: set this above the balancer's connections to one replica, or 0",
  ),
  BATCH_SLOT_SHARE: int(
    50,
    1,
    100,
    "percent of this replica's render slots (`RENDER_CONCURRENCY`) that batch items may hold at once, at least one slot; a batch item takes a slot only when no synchronous capture waits for one",
  ),
  BATCH_NICENESS: int(
    10,
    0,
    19,
    "batch items render in a browser of their own started at this CPU niceness (`nice -n`), so that a running batch yields the cores to synchronous captures; it starts with the first item and closes after a minute without one. 0: batch items render in the captures' browser at the same priority",
  ),
  RUN_BATCHES: text(
    'worker',
    'where batch items run. `worker`: in a worker process of their own (`npm start` starts one beside the API at `BATCH_NICENESS`, restarts it if it dies; with the embedded store a third process serves the store to both); `false`: never in this process (API replicas of a cluster, whose items run in `npm run worker` replicas; needs `DATABASE_URL`); `inline`: in the API process itself (one process, as before the worker role)',
  ),
  WORKER_METRICS_PORT: text(
    '',
    'the batch worker (`npm run worker`) serves Prometheus `GET /metrics` on this port of `HOST` (its items running, renders, webhook deliveries); `0` picks a free one (the log says which); empty: the worker answers no HTTP at all. API processes serve `/metrics` on `PORT`',
  ),
  BATCH_POLL_SECONDS: int(
    30,
    1,
    600,
    'how often an idle worker looks for batch items and webhook events it was not woken for: items queued by another process wake it at once (LISTEN/NOTIFY), events it queued itself too, and retries when they are due; what is left (an event queued by another process, e.g. `batch.completed` after a `DELETE`, a retry failed on another replica) waits up to this long',
  ),
  STORE_SOCKET: text('', "set by `npm start` for its own processes, not by operators: the Unix socket where the embedded store's process serves it"),
  WEBHOOK_RETRY_SECONDS: int(
    5,
    1,
    600,
    'the first retry of a failed webhook delivery after this many seconds, then doubling (with jitter) up to 15 minutes, 12 retries in all; tests shorten it',
  ),
  RESULTS_RETENTION_SECONDS: int(
    7 * 24 * 3600,
    60,
    365 * 24 * 3600,
    "how long a batch item's picture is kept; afterwards `GET /v1/batches/{id}/items/{index}` answers 410 `result_expired` and the picture is deleted",
  ),
  RESULTS_S3_BUCKET: text(
    '',
    "the S3 bucket that keeps batch results; empty = on local disk under `DATA_DIR/results` (embedded default). With it, the `RESULTS_S3_*` settings and the AWS SDK's usual variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`) apply",
  ),
  RESULTS_S3_ENDPOINT: text('', 'an S3-compatible endpoint URL (MinIO, R2, Ceph...); empty = AWS S3 of `RESULTS_S3_REGION`. Path-style addressing is used'),
  RESULTS_S3_REGION: text('us-east-1', 'the region of the results bucket'),
  RESULTS_S3_PREFIX: text('', 'a key prefix for every object written in the results bucket (`screenshots/`)'),
  RESULTS_S3_ACCESS_KEY_ID: text('', "the results bucket's access key id; empty = the AWS SDK's default credentials"),
  RESULTS_S3_SECRET_ACCESS_KEY: text('', "the results bucket's secret access key (with `RESULTS_S3_ACCESS_KEY_ID`)"),
  WEBHOOK_SECRET: text(
    '',
    "a Standard Webhooks secret (`whsec_` + base64) from which each `API_KEYS` key gets a webhook signing secret of its own (an HMAC over the key's id; `GET /v1/webhook-secret` shows it to its owner); keys made with `npm run keys` have their own random one (shown and rotated there)",
  ),
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;
export type IntSettingName = { [K in SettingName]: (typeof SETTINGS)[K] extends IntSetting ? K : never }[SettingName];
