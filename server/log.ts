// The logger. Request bodies and API keys are never logged (threat model: retention); the
// authorization header is redacted in case anything ever logs headers.
import { pino, type DestinationStream, type Logger } from 'pino';
import { REQUEST_HEADER } from './kinds/headers.ts';
import { traceFields } from './telemetry/log-fields.ts';

const AUTH = REQUEST_HEADER.authorization;

/** `destination`: where lines go (stdout by default; tests read them). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      // While a span is active (tracing on), the line names its trace_id and span_id.
      mixin: traceFields,
      redact: { paths: [`req.headers.${AUTH}`, `headers.${AUTH}`, AUTH, 'apiKey', 'key', 'html', 'body'], censor: '[redacted]' },
    },
    destination,
  );
}

export type { Logger };
