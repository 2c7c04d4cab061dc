// A worker thread of the pool (pool.ts): compares the pictures it is sent and posts back the
// figures and the diff picture, or which picture could not be decoded.
import { parentPort } from 'node:worker_threads';
import { compareEncoded, UndecodablePicture } from './compare.ts';
import type { Job, Reply } from './pool.ts';

parentPort!.on('message', (job: Job) => {
  compareEncoded(job.current, job.baseline, job.options).then(
    // Copied, not transferred: the encoder's buffer may be external memory, which Node 24 refuses
    // to transfer (DataCloneError); the copy is one memcpy of the encoded diff picture.
    (result) => parentPort!.postMessage({ id: job.id, result } satisfies Reply),
    (e: unknown) =>
      parentPort!.postMessage({
        id: job.id,
        error: e instanceof UndecodablePicture ? { undecodable: e.which } : { message: e instanceof Error ? e.message : String(e) },
      } satisfies Reply),
  );
});
