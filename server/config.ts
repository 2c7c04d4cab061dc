// Configuration: every environment variable the server reads (server/settings.ts states each one:
// default, bounds, meaning), validated once at start-up. A bad value stops the process with a
// message naming the variable (DESIGN §5).
import { existsSync, accessSync, constants } from 'node:fs';
import path from 'node:path';
import { DEFAULT_SANDBOX, type SandboxSettings } from './sandbox/index.ts';
import { SETTINGS, type IntSettingName, type SettingName } from './settings.ts';
import { PROTOCOLS, SAMPLERS, type TelemetryConfig } from './telemetry/config.ts';

export interface Config {
  port: number;
  host: string;
  chromiumPath: string;
  apiKeys: string[];
  dataDir: string;
  databaseUrl: string | null;
  egressAllow: string[];
  renderConcurrency: number;
  queueLimit: number;
  recycleAfter: number;
  renderBudgetMs: number;
  maxOutputPixels: number;
  cacheTtlSeconds: number;
  cacheMaxBytes: number;
  rateLimitPerMinute: number;
  freeCredits: number;
  logLevel: string;
  /** Origins whose pages may call the API from a browser (CORS); empty = none. */
  corsOrigins: string[];
  /** LINK_SIGNING_KEK: the 32-byte key that seals signing secrets of signed links (server/links/kek.ts); null = DATA_DIR file or none. */
  linkSigningKek: Buffer | null;
  /** BROWSER_SANDBOX and BROWSER_SANDBOX_USER: how Chromium is confined (server/sandbox). */
  browserSandbox: SandboxSettings;
  /** After SIGTERM: seconds the listener stays open, /readyz answering 503, before it closes (server/http/drain.ts). */
  drainSeconds: number;
  /** Connection limits (server/http/connections.ts). */
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
  httpKeepAliveTimeoutMs: number;
  httpIdleTimeoutMs: number;
  maxConnectionsPerIp: number;
  /** Batches of captures (server/batches), their results storage and their webhooks. */
  batches: BatchConfig;
  /** RUN_BATCHES: where batch items run (a worker process, never here, or in this process). */
  runBatches: 'worker' | 'false' | 'inline';
  /** WORKER_METRICS_PORT: where a batch worker serves GET /metrics (0: a free port); null = no HTTP at all. */
  workerMetricsPort: number | null;
  /** STORE_SOCKET: the embedded store served by its own process (set by npm start for its processes); null = opened here. */
  storeSocket: string | null;
  /** OpenTelemetry traces (server/telemetry/); null = off (no OTLP endpoint). */
  telemetry: TelemetryConfig | null;
}

/** Where batch results are kept (server/results). */
export type ResultsConfig =
  | { kind: 'local' }
  | { kind: 's3'; bucket: string; endpoint: string | null; region: string; prefix: string; accessKeyId: string | null; secretAccessKey: string | null };

export interface BatchConfig {
  /** BATCH_SLOT_SHARE: percent of the render slots batch items may hold. */
  slotSharePercent: number;
  /** BATCH_NICENESS: batch items render in a browser of their own at this CPU niceness (0: in the captures' browser). */
  niceness: number;
  retentionSeconds: number;
  /** WEBHOOK_RETRY_SECONDS: the first retry's delay (server/batches/queue.ts WEBHOOK_RETRIES doubles it). */
  webhookRetrySeconds: number;
  /** BATCH_POLL_SECONDS: the workers' fallback poll (server/batches/workers.ts). */
  pollSeconds: number;
  results: ResultsConfig;
  /** WEBHOOK_SECRET: each API_KEYS key's webhook secret is derived from it (server/webhooks/secrets.ts); null = they get a random one in the store. */
  webhookSecret: string | null;
}

export class ConfigError extends Error {}

/** Browser binaries in order of preference (scripts/setup-browser.sh searches the same list). */
export const CHROMIUM_CANDIDATES = ['/usr/lib/chromium/chromium-headless-shell', '/usr/lib/chromium/chromium'];

function int(env: NodeJS.ProcessEnv, name: IntSettingName): number {
  const { default: def, min, max } = SETTINGS[name];
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got ${JSON.stringify(raw)}`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got ${n}`);
  return n;
}

/** A text setting's value, trimmed; its default when unset or empty. */
function textOf(env: NodeJS.ProcessEnv, name: SettingName): string {
  return env[name]?.trim() || SETTINGS[name].default.toString();
}

function list(env: NodeJS.ProcessEnv, name: SettingName): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function findChromium(env: NodeJS.ProcessEnv): string {
  const explicit = env.CHROMIUM_PATH;
  if (explicit) {
    try {
      accessSync(explicit, constants.X_OK);
    } catch {
      throw new ConfigError(`CHROMIUM_PATH=${explicit} is not an executable file`);
    }
    return explicit;
  }
  const found = CHROMIUM_CANDIDATES.find((c) => existsSync(c));
  if (!found) throw new ConfigError('CHROMIUM_PATH is not set and no Chromium was found; run `npm run setup` (scripts/setup-browser.sh)');
  return found;
}

/** BROWSER_SANDBOX (auto | require | off) and BROWSER_SANDBOX_USER (uid:gid, used when run as root). */
export function browserSandbox(env: NodeJS.ProcessEnv): SandboxSettings {
  const mode = env.BROWSER_SANDBOX?.trim() || DEFAULT_SANDBOX.mode;
  if (mode !== 'auto' && mode !== 'require' && mode !== 'off')
    throw new ConfigError(`BROWSER_SANDBOX must be one of auto, require, off, got ${JSON.stringify(mode)}`);
  const user = env.BROWSER_SANDBOX_USER?.trim();
  if (!user) return { ...DEFAULT_SANDBOX, mode };
  const m = /^(\d{1,10}):(\d{1,10})$/.exec(user);
  const [uid, gid] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
  if (!(uid >= 1 && uid < 2 ** 32 - 1 && gid >= 1 && gid < 2 ** 32 - 1))
    throw new ConfigError(`BROWSER_SANDBOX_USER must be a numeric uid:gid other than root (e.g. 65534:65534), got ${JSON.stringify(user)}`);
  return { mode, uid, gid };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const apiKeys = list(env, 'API_KEYS');
  for (const k of apiKeys) {
    if (!/^[A-Za-z0-9._~+/=-]{16,200}$/.test(k)) throw new ConfigError('API_KEYS entries must be 16 to 200 characters of [A-Za-z0-9._~+/=-]');
  }
  const egressAllow = list(env, 'EGRESS_ALLOW');
  for (const o of egressAllow) {
    if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(o))
      throw new ConfigError(`EGRESS_ALLOW entries must be exact host:port origins, got ${JSON.stringify(o)}`);
  }
  const corsOrigins = list(env, 'CORS_ORIGINS');
  for (const o of corsOrigins) {
    // Exact origins, as a browser sends them in `Origin`; or `*` alone (any page, with its own key).
    const exact = /^https?:\/\//.test(o) && URL.canParse(o) && new URL(o).origin === o;
    if (!(exact || (o === '*' && corsOrigins.length === 1)))
      throw new ConfigError(
        `CORS_ORIGINS entries must be exact origins like https://app.example.com (scheme, host, optional port; no path), or * alone, got ${JSON.stringify(o)}`,
      );
  }
  const databaseUrl = env.DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  const linkSigningKek = keyBytes(env, 'LINK_SIGNING_KEK');
  const logLevel = textOf(env, 'LOG_LEVEL');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`);
  const httpHeadersTimeoutMs = int(env, 'HTTP_HEADERS_TIMEOUT_MS');
  const httpRequestTimeoutMs = int(env, 'HTTP_REQUEST_TIMEOUT_MS');
  // Node refuses a head timeout longer than the whole request's.
  if (httpHeadersTimeoutMs > httpRequestTimeoutMs)
    throw new ConfigError(`HTTP_HEADERS_TIMEOUT_MS (${httpHeadersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${httpRequestTimeoutMs})`);
  return {
    port: int(env, 'PORT'),
    host: textOf(env, 'HOST'),
    chromiumPath: findChromium(env),
    apiKeys,
    dataDir: path.resolve(textOf(env, 'DATA_DIR')),
    databaseUrl,
    egressAllow,
    renderConcurrency: int(env, 'RENDER_CONCURRENCY'),
    queueLimit: int(env, 'QUEUE_LIMIT'),
    recycleAfter: int(env, 'BROWSER_RECYCLE_AFTER'),
    renderBudgetMs: int(env, 'RENDER_BUDGET_MS'),
    maxOutputPixels: int(env, 'MAX_OUTPUT_PIXELS'),
    cacheTtlSeconds: int(env, 'CACHE_TTL_SECONDS'),
    cacheMaxBytes: int(env, 'CACHE_MAX_BYTES'),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE'),
    freeCredits: int(env, 'FREE_CREDITS'),
    logLevel,
    corsOrigins,
    linkSigningKek,
    drainSeconds: int(env, 'DRAIN_SECONDS'),
    browserSandbox: browserSandbox(env),
    httpHeadersTimeoutMs,
    httpRequestTimeoutMs,
    httpKeepAliveTimeoutMs: int(env, 'HTTP_KEEPALIVE_TIMEOUT_MS'),
    httpIdleTimeoutMs: int(env, 'HTTP_IDLE_TIMEOUT_MS'),
    maxConnectionsPerIp: int(env, 'MAX_CONNECTIONS_PER_IP'),
    batches: batchConfig(env),
    runBatches: runBatches(env, databaseUrl),
    workerMetricsPort: workerMetricsPort(env),
    storeSocket: env.STORE_SOCKET?.trim() || null,
    telemetry: telemetryConfig(env),
  };
}

function runBatches(env: NodeJS.ProcessEnv, databaseUrl: string | null): Config['runBatches'] {
  const raw = env.RUN_BATCHES?.trim() || 'worker';
  if (raw !== 'worker' && raw !== 'false' && raw !== 'inline') throw new ConfigError('RUN_BATCHES must be worker, false or inline');
  // Items never run anywhere unless worker replicas share the queue (PostgreSQL) or npm start's worker shares the store.
  if (raw === 'false' && !databaseUrl && !env.STORE_SOCKET?.trim())
    throw new ConfigError('RUN_BATCHES=false needs DATABASE_URL: worker replicas (npm run worker) take the items from there');
  return raw;
}

function workerMetricsPort(env: NodeJS.ProcessEnv): number | null {
  const raw = env.WORKER_METRICS_PORT?.trim();
  if (!raw) return null;
  if (!/^\d+$/.test(raw) || Number(raw) > 65535)
    throw new ConfigError(`WORKER_METRICS_PORT must be a port number (0 to 65535) or empty, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** The standard OTEL_* variables; null (tracing off) without an OTLP endpoint or with OTEL_SDK_DISABLED=true. */
function telemetryConfig(env: NodeJS.ProcessEnv): TelemetryConfig | null {
  // The batch settings are checked whether tracing is on or not: a bad value is found at once.
  const batch = {
    scheduledDelayMillis: int(env, 'OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: int(env, 'OTEL_BSP_EXPORT_TIMEOUT'),
    maxQueueSize: int(env, 'OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: int(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  };
  if (batch.maxExportBatchSize > batch.maxQueueSize) throw new ConfigError('OTEL_BSP_MAX_EXPORT_BATCH_SIZE must not exceed OTEL_BSP_MAX_QUEUE_SIZE');
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if ((!traces && !base) || textOf(env, 'OTEL_SDK_DISABLED').toLowerCase() === 'true') return null;
  const url = traces || `${base!.replace(/\/+$/, '')}/v1/traces`;
  if (!/^https?:\/\//.test(url) || !URL.canParse(url))
    throw new ConfigError(`${traces ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'} must be an http:// or https:// URL`);
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() || textOf(env, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  if (!oneOf(PROTOCOLS, protocol)) throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL must be one of ${PROTOCOLS.join(', ')}, got ${JSON.stringify(protocol)}`);
  const sampler = textOf(env, 'OTEL_TRACES_SAMPLER');
  if (!oneOf(SAMPLERS, sampler)) throw new ConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got ${JSON.stringify(sampler)}`);
  const ratio = Number(textOf(env, 'OTEL_TRACES_SAMPLER_ARG'));
  if (!(ratio >= 0 && ratio <= 1)) throw new ConfigError('OTEL_TRACES_SAMPLER_ARG must be a number between 0 and 1');
  return { url, protocol, serviceName: textOf(env, 'OTEL_SERVICE_NAME'), sampler, ratio, batch };
}

const oneOf = <T extends string>(values: readonly T[], v: string): v is T => (values as readonly string[]).includes(v);

function batchConfig(env: NodeJS.ProcessEnv): BatchConfig {
  const webhookSecret = env.WEBHOOK_SECRET?.trim() || null;
  if (webhookSecret && !/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/.test(webhookSecret))
    throw new ConfigError('WEBHOOK_SECRET must be whsec_ followed by base64 (at least 12 bytes), as Standard Webhooks secrets are');
  const bucket = env.RESULTS_S3_BUCKET?.trim() || null;
  const endpoint = env.RESULTS_S3_ENDPOINT?.trim() || null;
  if (endpoint && !/^https?:\/\//.test(endpoint)) throw new ConfigError('RESULTS_S3_ENDPOINT must be an http:// or https:// URL');
  const accessKeyId = env.RESULTS_S3_ACCESS_KEY_ID?.trim() || null;
  const secretAccessKey = env.RESULTS_S3_SECRET_ACCESS_KEY?.trim() || null;
  if (!accessKeyId !== !secretAccessKey) throw new ConfigError('RESULTS_S3_ACCESS_KEY_ID and RESULTS_S3_SECRET_ACCESS_KEY are set together or not at all');
  return {
    slotSharePercent: int(env, 'BATCH_SLOT_SHARE'),
    niceness: int(env, 'BATCH_NICENESS'),
    retentionSeconds: int(env, 'RESULTS_RETENTION_SECONDS'),
    webhookRetrySeconds: int(env, 'WEBHOOK_RETRY_SECONDS'),
    pollSeconds: int(env, 'BATCH_POLL_SECONDS'),
    webhookSecret,
    results: bucket
      ? { kind: 's3', bucket, endpoint, region: textOf(env, 'RESULTS_S3_REGION'), prefix: env.RESULTS_S3_PREFIX?.trim() ?? '', accessKeyId, secretAccessKey }
      : { kind: 'local' },
  };
}

/** 32 bytes written as 64 hex characters or as base64/base64url; null when unset. Never echoed. */
function keyBytes(env: NodeJS.ProcessEnv, name: SettingName): Buffer | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  const bytes = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(raw) ? Buffer.from(raw, 'base64') : null;
  if (!bytes || bytes.length !== 32)
    throw new ConfigError(`${name} must be 32 random bytes written as 64 hex characters or in base64 (e.g. \`openssl rand -hex 32\`)`);
  return bytes;
}
