// The batch tools over MCP (submit_batch, get_batch) with the official SDK client against a real
// server: the input schema is POST /v1/batches's body around take_screenshot's schema, bad fields
// are named by position and nothing is queued or charged, a batch runs to the end and an item's
// picture link answers the picture of the synchronous capture, another key sees nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BATCH_META_KEY } from '../../server/mcp/batch-tools.ts';
import { toolInputSchema } from '../../server/mcp/tool.ts';
import { OTHER_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { call, shoot, show } from '../support/http.ts';
import { eventually } from '../support/wait.ts';
import { balance, connect, MCP_SERVER_ENV, mcpUrl, textOf } from './helpers.ts';

let ts: TestServer;
let client: Client;
let other: Client;

before(async () => {
  ts = await startTestServer(MCP_SERVER_ENV);
  client = await connect(mcpUrl(ts));
  other = await connect(mcpUrl(ts), OTHER_KEY);
});

after(async () => {
  await client?.close();
  await other?.close();
  await ts?.close();
});

const tool = async (name: string, args: Record<string, unknown>, c = client) => (await c.callTool({ name, arguments: args })) as CallToolResult;
const meta = (r: CallToolResult) => (r._meta as Record<string, any>)[BATCH_META_KEY];
const colour = (c: string) => ({ html: `<style>html,body{margin:0;background:${c}}</style><p>x</p>`, viewport: { width: 40, height: 30 } });

test("submit_batch's input schema is POST /v1/batches's body (from /openapi.json) around take_screenshot's", async () => {
  const { tools } = await client.listTools();
  const submit = tools.find((t) => t.name === 'submit_batch')!;
  const rest = (await call(ts.url, '/openapi.json', undefined, { method: 'GET' })).json.paths['/v1/batches'].post.requestBody.content['application/json']
    .schema;
  const props = submit.inputSchema.properties as Record<string, any>;
  assert.deepEqual(Object.keys(props), Object.keys(rest.properties));
  assert.deepEqual(props.webhook, rest.properties.webhook);
  const { items, ...requests } = props.requests;
  const { items: restItems, ...restRequests } = rest.properties.requests;
  assert.deepEqual(requests, restRequests, 'the same bounds');
  assert.deepEqual(items, toolInputSchema(), "each item is take_screenshot's arguments");
  assert.deepEqual(Object.keys(items.properties ?? {}).sort(), Object.keys(restItems.properties).sort(), 'the fields of a capture request');
  assert.deepEqual(submit.inputSchema.required, rest.required);
  assert.ok(tools.some((t) => t.name === 'get_batch'));
});

test('submit_batch: a bad field is named by position, nothing queued or charged; a webhook to loopback is refused', async () => {
  const before = await balance(ts.server);
  const r = await tool('submit_batch', { requests: [colour('#fff'), { ...colour('#000'), viewport: { width: 0, height: 10 } }] });
  assert.equal(r.isError, true);
  assert.match(textOf(r), /^bad_request: .*requests\[1\]\.viewport\.width must be/);
  assert.match(textOf(r), /Nothing was queued or charged\./);
  const hook = await tool('submit_batch', { requests: [colour('#fff')], webhook: { url: 'http://127.0.0.2:9/h' } });
  assert.equal(hook.isError, true);
  assert.match(textOf(hook), /^bad_request: webhook\.url /);
  assert.equal(await balance(ts.server), before);
});

test('submit_batch then get_batch: the batch runs to the end; an item gives its picture link, which answers the synchronous capture; another key sees nothing', async () => {
  const before = await balance(ts.server);
  const requests = [colour('#ff0000'), colour('#00ff00'), { html: '<p>x</p>', selector: '#missing', viewport: { width: 40, height: 30 } }];
  const sub = await tool('submit_batch', { requests });
  assert.notEqual(sub.isError, true, textOf(sub));
  const id = meta(sub).id as string;
  assert.match(id, /^bat_/);
  assert.match(textOf(sub), new RegExp(`Batch ${id} queued: 3 capture`));
  let state: any;
  assert.ok(
    await eventually(
      async () => {
        const r = await tool('get_batch', { id });
        assert.notEqual(r.isError, true, textOf(r));
        state = meta(r);
        return state.counts.pending === 0;
      },
      60_000,
      250,
    ),
    `the batch settles: ${JSON.stringify(state?.counts)}`,
  );
  assert.equal(state.state, 'done');
  assert.deepEqual([state.counts.succeeded, state.counts.failed], [2, 1]);
  const failed = await tool('get_batch', { id, index: 2 });
  assert.equal(meta(failed).item.error, 'selector_not_found');
  assert.match(textOf(failed), /Item 2: failed: selector_not_found/);
  const item = await tool('get_batch', { id, index: 1 });
  const link = meta(item).item.link as string;
  assert.equal(link, `/v1/batches/${id}/items/1`);
  assert.ok(textOf(item).includes(`GET ${link}`), textOf(item));
  const picture = await call(ts.url, link, undefined, { method: 'GET' });
  assert.equal(picture.status, 200, show(picture));
  const sync = await shoot(ts.url, requests[1]);
  assert.ok(picture.body.equals(sync.body), 'the picture is the synchronous capture of the same request');
  assert.equal(await balance(ts.server), before - 3, 'two items and the synchronous capture are billed');
  const none = await tool('get_batch', { id }, other);
  assert.equal(none.isError, true);
  assert.match(textOf(none), /^not_found: /);
  const outside = await tool('get_batch', { id, index: 7 });
  assert.match(textOf(outside), /^not_found: the batch has no item 7/);
});
