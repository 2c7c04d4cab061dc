// What the relations (relations.ts) read in a picture: a capture's answer decoded (or the check that
// says why there is none), and the share of pixels of a region that keep a condition.
import type { Observed } from '../engine/exchange.ts';
import { decodeImage, type DecodedImage, type Rgba } from '../engine/image.ts';
import type { Check } from '../model/model.ts';
import { everyAnswer } from './property.ts';

export interface Shot {
  res: Observed;
  image?: DecodedImage;
}

/** The answer's picture, with the checks that it is one: 200, the type asked for, every answer's rules. */
export async function pictureOf(res: Observed, type: 'png' | 'jpeg' | 'webp', label: string): Promise<{ shot: Shot; checks: Check[] }> {
  const checks = everyAnswer(res, `${label}: `);
  checks.push({ name: `${label}: 200`, pass: res.status === 200, detail: `status ${res.status}` });
  if (res.status !== 200) return { shot: { res }, checks };
  try {
    const image = await decodeImage(res.body);
    checks.push({ name: `${label}: a ${type} picture`, pass: image.type === type, detail: `got ${image.type} ${image.width}x${image.height}` });
    return { shot: { res, image }, checks };
  } catch (e) {
    checks.push({ name: `${label}: a picture`, pass: false, detail: (e as Error).message });
    return { shot: { res }, checks };
  }
}

export const pixel = (img: Rgba, x: number, y: number): [number, number, number, number] => {
  const i = 4 * (y * img.width + x);
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!, img.data[i + 3]!];
};

/** The largest difference of one colour channel between two pixels (alpha left out). */
export const channelDiff = (a: readonly number[], b: readonly number[]) => Math.max(Math.abs(a[0]! - b[0]!), Math.abs(a[1]! - b[1]!), Math.abs(a[2]! - b[2]!));

/** Of the image's pixels for which `where` holds, the share for which `keeps` holds too (1 when none is counted), and how many were counted. */
export function share(img: Rgba, where: (x: number, y: number) => boolean, keeps: (x: number, y: number) => boolean): { ratio: number; counted: number } {
  let counted = 0;
  let kept = 0;
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) {
      if (!where(x, y)) continue;
      counted++;
      if (keeps(x, y)) kept++;
    }
  return { ratio: counted ? kept / counted : 1, counted };
}

/** A check that at least `min` of the counted pixels keep the condition. */
export function shareCheck(name: string, s: { ratio: number; counted: number }, min: number): Check {
  return { name, pass: s.ratio >= min, detail: `${(s.ratio * 100).toFixed(2)}% of ${s.counted} pixels (at least ${(min * 100).toFixed(1)}%)` };
}
