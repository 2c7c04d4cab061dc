// Semantic probes: facts about an image that hold on any engine (the colour of a region, its
// alpha), as opposed to goldens, which only say "same as last time" (DESIGN §6).
import type { Check, Probe, Region } from '../model/model.ts';
import type { Rgba } from './image.ts';

export function resolveRegion(img: Rgba, r: Region): Region | null {
  if (r.unit === 'fraction') {
    const px = {
      x: Math.floor(r.x * img.width),
      y: Math.floor(r.y * img.height),
      w: Math.max(1, Math.floor(r.w * img.width)),
      h: Math.max(1, Math.floor(r.h * img.height)),
    };
    return px.x + px.w <= img.width && px.y + px.h <= img.height ? px : null;
  }
  const x = r.x < 0 ? img.width + r.x : r.x;
  const y = r.y < 0 ? img.height + r.y : r.y;
  if (x < 0 || y < 0 || r.w < 1 || r.h < 1 || x + r.w > img.width || y + r.h > img.height) return null;
  return { x, y, w: r.w, h: r.h };
}

function describe(r: Region): string {
  return r.unit === 'fraction' ? `${r.w}x${r.h}@${r.x},${r.y} of the image` : `${r.w}x${r.h}@${r.x},${r.y}`;
}

/** Mean colour of a region, for messages. */
function mean(img: Rgba, r: Region): string {
  let R = 0,
    G = 0,
    B = 0,
    A = 0;
  for (let yy = r.y; yy < r.y + r.h; yy++) {
    for (let xx = r.x; xx < r.x + r.w; xx++) {
      const i = (yy * img.width + xx) * 4;
      R += img.data[i]!;
      G += img.data[i + 1]!;
      B += img.data[i + 2]!;
      A += img.data[i + 3]!;
    }
  }
  const n = r.w * r.h;
  return `rgba(${Math.round(R / n)},${Math.round(G / n)},${Math.round(B / n)},${Math.round(A / n)})`;
}

function fractionNear(img: Rgba, r: Region, rgb: [number, number, number], tol: number, alpha?: number): number {
  let hits = 0;
  for (let yy = r.y; yy < r.y + r.h; yy++) {
    for (let xx = r.x; xx < r.x + r.w; xx++) {
      const i = (yy * img.width + xx) * 4;
      const d = img.data;
      if (
        Math.abs(d[i]! - rgb[0]) <= tol &&
        Math.abs(d[i + 1]! - rgb[1]) <= tol &&
        Math.abs(d[i + 2]! - rgb[2]) <= tol &&
        (alpha === undefined || Math.abs(d[i + 3]! - alpha) <= tol)
      )
        hits++;
    }
  }
  return hits / (r.w * r.h);
}

export function evaluateProbe(img: Rgba, probe: Probe): Check {
  const label = probe.label ? ` (${probe.label})` : '';
  const r = resolveRegion(img, probe.region);
  const name = `probe ${probe.kind} ${describe(probe.region)}${label}`;
  if (!r) return { name, pass: false, detail: `region outside the ${img.width}x${img.height} image` };
  switch (probe.kind) {
    case 'color': {
      const tol = probe.tolerance ?? 24;
      const want = probe.fraction ?? 0.98;
      const f = fractionNear(img, r, probe.rgb, tol, probe.alpha);
      const target = `rgb(${probe.rgb.join(',')})${probe.alpha !== undefined ? ` alpha ${probe.alpha}` : ''}`;
      return {
        name,
        pass: f >= want,
        detail: `${(f * 100).toFixed(1)}% of pixels within ${tol} of ${target} (need ${(want * 100).toFixed(0)}%); mean ${mean(img, r)}`,
      };
    }
    case 'absent': {
      const tol = probe.tolerance ?? 24;
      const most = probe.fraction ?? 0.02;
      const f = fractionNear(img, r, probe.rgb, tol);
      return {
        name,
        pass: f <= most,
        detail: `${(f * 100).toFixed(1)}% of pixels within ${tol} of rgb(${probe.rgb.join(',')}) (at most ${(most * 100).toFixed(0)}%); mean ${mean(img, r)}`,
      };
    }
    case 'alpha': {
      let lo = 255,
        hi = 0;
      for (let yy = r.y; yy < r.y + r.h; yy++) {
        for (let xx = r.x; xx < r.x + r.w; xx++) {
          const a = img.data[(yy * img.width + xx) * 4 + 3]!;
          if (a < lo) lo = a;
          if (a > hi) hi = a;
        }
      }
      return { name, pass: lo >= probe.min && hi <= probe.max, detail: `alpha in [${lo}, ${hi}], need [${probe.min}, ${probe.max}]` };
    }
  }
}
