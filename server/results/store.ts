// What a place for batch pictures does, whichever it is (./local.ts, ./s3.ts): both implement it
// and ./index.ts picks one, so the shape sits below all three.
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
