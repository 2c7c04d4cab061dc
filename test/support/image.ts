// The one probe module of the tests: decoding a capture, reading pixels, and the conformance
// suite's semantic probes (conformance/engine/probes.ts: "this region is that colour", "that colour is
// gone", alpha ranges) and type sniffing (conformance/engine/image.ts) instead of copies of them.
// Decoding uses sharp rather than the suite's pngjs: it is several times faster on the 30,000-px
// captures of the fullPage tests, and sharp decodes PNG losslessly too.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { Rgba } from '../../conformance/engine/image.ts';
import type { Probe } from '../../conformance/model/model.ts';
import { evaluateProbe } from '../../conformance/engine/probes.ts';

export { sniffType } from '../../conformance/engine/image.ts';
export type { Probe, Rgba };

export interface Raw extends Rgba {
  data: Buffer;
  /** [r, g, b, a] at (x, y) */
  at(x: number, y: number): [number, number, number, number];
}

/** Any PNG, JPEG or WebP as 8-bit RGBA. */
export async function decode(img: Buffer): Promise<Raw> {
  const { data, info } = await sharp(img, { limitInputPixels: false }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    data,
    at(x, y) {
      const o = (y * info.width + x) * 4;
      return [data[o]!, data[o + 1]!, data[o + 2]!, data[o + 3]!];
    },
  };
}

/** True when the two colours differ by at most `tol` per channel (rgb only). */
export function near(c: readonly number[], want: readonly number[], tol = 8): boolean {
  return Math.abs(c[0]! - want[0]!) <= tol && Math.abs(c[1]! - want[1]!) <= tol && Math.abs(c[2]! - want[2]!) <= tol;
}

/** The probes that do not hold on `img`, each as "name: detail" (empty when all hold). */
export function probeFailures(img: Rgba, probes: readonly Probe[]): string[] {
  return probes
    .map((p) => evaluateProbe(img, p))
    .filter((c) => !c.pass)
    .map((c) => `${c.name}: ${c.detail}`);
}

/** Writes an image to $API_TEST_SHOTS/<name> when that variable is set (for looking at them). */
export function keep(name: string, img: Buffer): void {
  const dir = process.env.API_TEST_SHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), img);
}

/** A small solid-colour PNG (fixture images). */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } })
    .png()
    .toBuffer();
}
