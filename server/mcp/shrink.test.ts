// The MCP size budget on synthetic images (sharp only, no browser): untouched within the limits,
// re-encoded and then downscaled beyond them, alpha kept as WebP, and the text says what was done.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { describeShrink, fitImage, MCP_IMAGE_BUDGET_BYTES, MCP_IMAGE_MAX_EDGE } from './shrink.ts';

/** Deterministic noise: incompressible for PNG, expensive for lossy encoders too. */
async function noise(width: number, height: number, format: 'png' | 'jpeg' | 'webp', alpha = false): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 4);
  let s = 2463534242; // xorshift32
  for (let i = 0; i < data.length; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    data[i] = (i & 3) === 3 ? (alpha && i % 8 === 3 ? 0 : 255) : s & 255;
  }
  const img = sharp(data, { raw: { width, height, channels: 4 } });
  return format === 'png' ? img.png().toBuffer() : format === 'jpeg' ? img.jpeg({ quality: 100 }).toBuffer() : img.webp({ quality: 100 }).toBuffer();
}

test('a capture within the limits is returned byte for byte', async () => {
  const body = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  const f = await fitImage(body, 'png');
  assert.equal(f.data, body);
  assert.equal(f.format, 'png');
  assert.deepEqual([f.width, f.height], [200, 100]);
  assert.equal(f.shrunk, undefined);
  assert.equal(describeShrink(f), '');
});

test('an opaque PNG over the budget becomes a JPEG within it, and the text says so', async () => {
  const body = await noise(800, 600, 'png');
  assert.ok(body.length > MCP_IMAGE_BUDGET_BYTES, `fixture is ${body.length} bytes`);
  const f = await fitImage(body, 'png');
  assert.ok(f.data.length <= MCP_IMAGE_BUDGET_BYTES, `${f.data.length} bytes`);
  assert.equal(f.format, 'jpeg');
  const meta = await sharp(f.data).metadata();
  assert.equal(meta.format, 'jpeg');
  assert.deepEqual([meta.width, meta.height], [f.width, f.height]);
  assert.equal(f.shrunk?.originalBytes, body.length);
  const text = describeShrink(f);
  assert.match(text, /PNG 800x600/);
  assert.match(text, /re-encoded as JPEG quality \d+/);
  assert.match(text, new RegExp(`${f.data.length.toLocaleString('en-US')} bytes`));
});

test('a PNG with transparent pixels becomes WebP (JPEG has no alpha)', async () => {
  const body = await noise(800, 600, 'png', true);
  const f = await fitImage(body, 'png');
  assert.equal(f.format, 'webp');
  assert.ok(f.data.length <= MCP_IMAGE_BUDGET_BYTES);
  assert.equal((await sharp(f.data).metadata()).hasAlpha, true);
});

test('when quality is not enough the image is downscaled, and the text names the new size', async () => {
  const limits = { maxBytes: 60_000, maxEdge: MCP_IMAGE_MAX_EDGE };
  const body = await noise(800, 600, 'jpeg');
  const f = await fitImage(body, 'jpeg', limits);
  assert.ok(f.data.length <= limits.maxBytes, `${f.data.length} bytes`);
  assert.equal(f.format, 'jpeg');
  assert.ok(f.width < 800 && f.height < 600, `${f.width}x${f.height}`);
  assert.ok(Math.abs(f.width / f.height - 800 / 600) < 0.02, 'aspect ratio kept');
  assert.match(describeShrink(f, limits), new RegExp(`downscaled to ${f.width}x${f.height}`));
});

test('an image over the edge limit is scaled to it even when its bytes fit', async () => {
  const limits = { maxBytes: MCP_IMAGE_BUDGET_BYTES, maxEdge: 500 };
  const body = await sharp({ create: { width: 300, height: 1000, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
  const f = await fitImage(body, 'png', limits);
  assert.equal(f.height, 500);
  assert.equal(f.width, 150);
  assert.equal(f.shrunk?.reason, 'edge');
  assert.match(describeShrink(f, limits), /over 500 px on a side/);
});
