// What every entry point (main.ts, worker.ts, store-server.ts) does first: the validated config,
// or exit 2 with a message naming the variable (DESIGN §5).
import { ConfigError, loadConfig, type Config } from './config.ts';

export function exitOnConfigError(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`configuration error: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
}
