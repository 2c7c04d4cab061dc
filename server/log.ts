// The logger. Request bodies and API keys are never logged (threat model: retention); the
// authorization header is redacted in case anything ever logs headers.
import { pino, type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'apiKey', 'key', 'html', 'body'], censor: '[redacted]' },
  });
}

export type { Logger };
