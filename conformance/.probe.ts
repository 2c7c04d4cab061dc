import { startReferenceTarget } from './run-against-reference.ts';
import { pageFixture, consentFixture } from './fixtures.ts';
import { request } from 'undici';
import { writeFileSync } from 'node:fs';
const t = await startReferenceTarget({ keys: 2 });
const bodies: Record<string, unknown> = JSON.parse(process.argv[2]!);
for (const [name, b] of Object.entries(bodies)) {
  const body = JSON.parse(JSON.stringify(b).replace(/"\$CFIX:([a-z0-9-]+)"/g, (_, n) => JSON.stringify(consentFixture(n + ".html"))).replace(/"\$FIX:([a-z0-9-]+)"/g, (_, n) => JSON.stringify(pageFixture(n))).replace(/\$ORIGIN/g, t.fixtureOrigins[0]!));
  const res = await request(t.baseUrl + '/v1/screenshot', { method: 'POST', headers: { authorization: `Bearer ${t.apiKeys[0]}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const buf = Buffer.from(await res.body.arrayBuffer());
  const h = Object.fromEntries(Object.entries(res.headers).filter(([k]) => /^(x-|content-type)/.test(k)));
  console.log(name, res.statusCode, JSON.stringify(h), buf.length, res.statusCode >= 400 ? buf.toString() : '');
  if (res.statusCode === 200) writeFileSync(`/tmp/conf/${name}.${String(res.headers['content-type']).split('/')[1]}`, buf);
}
await t.close();
