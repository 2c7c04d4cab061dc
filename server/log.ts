// The logger. Request bodies and API keys are never logged (threat model: retention); the
// authorization header is redacted in case anything ever logs headers.
import { pino, type Logger } from 'pino';
import { REQUEST_HEADER } from './kinds/headers.ts';

const AUTH = REQUEST_HEADER.authorization;

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: [`req.headers.${AUTH}`, `headers.${AUTH}`, AUTH, 'apiKey', 'key', 'html', 'body'], censor: '[redacted]' },
  });
}

export type { Logger };
