// The names of the two pg-boss queues, read by the queue (queue.ts) and by the statements that
// count its jobs (sql.ts, which queue.ts imports).
export const ITEM_QUEUE = 'batch-item';
export const WEBHOOK_QUEUE = 'batch-webhook';
