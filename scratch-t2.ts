import { PGlite } from '@electric-sql/pglite';
for (let i = 0; i < 3; i++) {
  const t0 = Date.now();
  const db = await PGlite.create('/tmp/acc-scratch/fresh' + i + '-' + Date.now());
  const t1 = Date.now();
  await db.close();
  console.log('fresh open ms', t1 - t0, 'close', Date.now() - t1);
}
const t0 = Date.now();
const db = await PGlite.create();
console.log('memory open ms', Date.now() - t0);
