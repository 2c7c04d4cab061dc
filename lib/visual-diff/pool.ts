// A small pool of worker threads for comparisons, so that comparing two tall pictures (hundreds of
// milliseconds of pixel work) never holds the event loop that serves every other request.
// Workers start on first use and stay; a job waits for a free worker (first come, first served);
// a worker that dies fails its job and is replaced. A worker starts at worker-entry.mjs, which
// registers tsx in its thread before loading worker.ts.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { UndecodablePicture, type Compared } from './compare.ts';
import type { DiffOptions } from './diff.ts';

export interface Job {
  id: number;
  current: Uint8Array;
  baseline: Uint8Array;
  options: DiffOptions;
}

export type Reply = { id: number; result: Compared } | { id: number; error: { undecodable: 'current' | 'baseline' } | { message: string } };

/** Two workers at most: a comparison is short, and render slots need the cores more. */
export const DEFAULT_DIFF_WORKERS = Math.max(1, Math.min(2, availableParallelism()));

interface Pending {
  job: Job;
  resolve(c: Compared): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  busy?: Pending;
}

export class DiffPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly size = DEFAULT_DIFF_WORKERS) {}

  /** Compares two encoded pictures (PNG, JPEG or WebP) in a worker. Throws UndecodablePicture naming the one that is not a picture. */
  compare(current: Uint8Array, baseline: Uint8Array, options: DiffOptions): Promise<Compared> {
    if (this.closed) return Promise.reject(new Error('the comparison pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ job: { id: this.nextId++, current, baseline, options }, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('the comparison pool is closed'));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.size) slot = this.start();
      if (!slot) return;
      const p = this.queue.shift()!;
      slot.busy = p;
      slot.worker.ref();
      slot.worker.postMessage(p.job);
    }
  }

  private start(): Slot {
    const slot: Slot = { worker: new Worker(new URL('./worker-entry.mjs', import.meta.url)) };
    slot.worker.unref();
    slot.worker.on('message', (r: Reply) => {
      const p = slot.busy;
      if (!p || p.job.id !== r.id) return;
      slot.busy = undefined;
      slot.worker.unref();
      if ('result' in r) p.resolve({ ...r.result, png: Buffer.from(r.result.png.buffer, r.result.png.byteOffset, r.result.png.byteLength) });
      else p.reject('undecodable' in r.error ? new UndecodablePicture(r.error.undecodable) : new Error(`comparison failed: ${r.error.message}`));
      this.dispatch();
    });
    const lost = (why: string) => {
      const i = this.slots.indexOf(slot);
      if (i < 0) return;
      this.slots.splice(i, 1);
      slot.busy?.reject(new Error(`a comparison worker stopped: ${why}`));
      if (!this.closed) this.dispatch();
    };
    slot.worker.on('error', (e) => lost(e.message));
    slot.worker.on('exit', (code) => lost(`exit code ${code}`));
    this.slots.push(slot);
    return slot;
  }
}
