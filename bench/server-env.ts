// How the bench starts the reference server: one API key, an ephemeral loopback port, no logs,
// no rate limit and credits enough for any run, the store in a directory of the caller's.
export const BENCH_KEY = 'bench-key-0123456789abcdef';

/** The environment for loadConfig; `extra` adds or overrides settings (CACHE_TTL_SECONDS, RENDER_CONCURRENCY...). */
export function benchEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    API_KEYS: BENCH_KEY,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    DATA_DIR: dataDir,
    FREE_CREDITS: '1000000',
    ...extra,
  };
}
