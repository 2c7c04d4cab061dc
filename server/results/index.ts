// Where the pictures of batch items are kept until their retention ends (RESULTS_RETENTION_SECONDS):
// on local disk under DATA_DIR/results (the embedded default, one process), or in an S3-compatible
// bucket every replica shares (RESULTS_S3_BUCKET). The batches room sees only `ResultStore`
// (./store.ts, the shape both kinds have).
import type { ResultsConfig } from '../config.ts';
import { localResults } from './local.ts';
import { s3Results } from './s3.ts';
import type { ResultStore } from './store.ts';

export function openResults(config: ResultsConfig, dataDir: string): ResultStore {
  return config.kind === 's3' ? s3Results(config) : localResults(dataDir);
}
