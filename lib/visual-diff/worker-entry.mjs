// The worker thread's entry, in plain JavaScript: it registers tsx in this thread, then loads the
// TypeScript worker (worker.ts). Node starts a worker's entry before any loader hooks would apply
// to it, so a .ts entry cannot be given to `new Worker` directly.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
