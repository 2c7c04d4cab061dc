// Where the pictures of batch items are kept until their retention ends (RESULTS_RETENTION_SECONDS):
// on local disk under DATA_DIR/results (the embedded default, one process), or in an S3-compatible
// bucket every replica shares (RESULTS_S3_BUCKET). The batches room sees only `ResultStore`.
import type { ResultsConfig } from '../config.ts';
import { localResults } from './local.ts';
import { s3Results } from './s3.ts';

export interface StoredResult {
  body: Buffer;
  contentType: string;
}

export interface ResultStore {
  readonly kind: 'local' | 's3';
  /** Writes (or overwrites: a run after a crash writes the same key again) one picture. */
  put(key: string, result: StoredResult): Promise<void>;
  /** The picture, or undefined when there is none (never written, or deleted). */
  get(key: string): Promise<StoredResult | undefined>;
  /** Deletes a picture; no error when it is not there. */
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

export function openResults(config: ResultsConfig, dataDir: string): ResultStore {
  return config.kind === 's3' ? s3Results(config) : localResults(dataDir);
}
