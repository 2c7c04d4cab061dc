// `npm run bench -- --only compare`: what POST /v1/compare adds to its captures, the comparison
// (decode both pictures, compare, group regions, draw and encode the diff picture) through the
// server's worker pool (lib/visual-diff/), on rendered pictures: the 1280x720 default viewport
// golden, and 1280x10000 made of it stacked (a tall page). Three pairs each: identical (what a
// monitor sees most), one block changed, and every row changed (the picture moved down one
// pixel: the worst case, no row can be skipped). Also the event loop's longest stall meanwhile:
// the work is in worker threads, so it stays near 0.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { decodePicture, DiffPool, encodePng, type Rgba } from '../lib/visual-diff/index.ts';
import { median, pct } from './measure.ts';

const GOLDEN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../golden/viewport.default-1280x720.png');
const TARGET_MS: Record<string, number> = { '1280x720': 30, '1280x10000': 300 };

function stack(img: Rgba, height: number): Rgba {
  const data = new Uint8Array(img.width * height * 4);
  for (let y = 0; y < height; y++) data.set(img.data.subarray((y % img.height) * img.width * 4, ((y % img.height) + 1) * img.width * 4), y * img.width * 4);
  return { width: img.width, height, data };
}

function changedBlock(img: Rgba): Rgba {
  const out = { ...img, data: new Uint8Array(img.data) };
  const y0 = Math.floor(img.height / 2);
  for (let y = y0; y < y0 + 60; y++) for (let x = 400; x < 600; x++) out.data.set([200, 30, 30, 255], (y * img.width + x) * 4);
  return out;
}

function movedDown(img: Rgba): Rgba {
  const out = { ...img, data: new Uint8Array(img.data.length).fill(255) };
  out.data.set(img.data.subarray(0, (img.height - 1) * img.width * 4), img.width * 4);
  return out;
}

export interface CompareFigures {
  size: string;
  pair: string;
  runs: number;
  medianMs: number;
  p95Ms: number;
  diffPixels: number;
  /** The event loop's longest stall during these runs (ms). */
  eventLoopMaxMs: number;
  targetMs: number;
}

export async function compareBench(quick: boolean): Promise<CompareFigures[]> {
  const runs = quick ? 8 : 30;
  const base = await decodePicture(readFileSync(GOLDEN));
  const pool = new DiffPool();
  const out: CompareFigures[] = [];
  try {
    for (const img of [base, stack(base, 10000)]) {
      const size = `${img.width}x${img.height}`;
      const current = await encodePng(img);
      const pairs: Array<[string, Buffer]> = [
        ['identical', current],
        ['one block changed', await encodePng(changedBlock(img))],
        ['every row changed', await encodePng(movedDown(img))],
      ];
      for (const [pair, baseline] of pairs) {
        await pool.compare(current, baseline, { threshold: 0.1, includeAA: false }); // workers started, code warm
        const loop = monitorEventLoopDelay({ resolution: 5 });
        loop.enable();
        const ms: number[] = [];
        let diffPixels = 0;
        for (let i = 0; i < runs; i++) {
          const t = performance.now();
          diffPixels = (await pool.compare(current, baseline, { threshold: 0.1, includeAA: false })).diffPixels;
          ms.push(performance.now() - t);
        }
        loop.disable();
        out.push({ size, pair, runs, medianMs: median(ms), p95Ms: pct(ms, 95), diffPixels, eventLoopMaxMs: loop.max / 1e6, targetMs: TARGET_MS[size]! });
      }
    }
  } finally {
    await pool.close();
  }
  return out;
}

/** Rows for the bench table: measure, detail, median ms, figure, target. */
export function compareRows(figures: CompareFigures[]): string[][] {
  return figures.map((f) => [
    `compare ${f.size}`,
    `${f.pair} (${f.diffPixels} px differ)`,
    f.medianMs.toFixed(1),
    `p95 ${f.p95Ms.toFixed(1)}, loop max ${f.eventLoopMaxMs.toFixed(1)}`,
    `< ${f.targetMs} ms`,
  ]);
}
