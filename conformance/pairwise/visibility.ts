// Where a value's effect shows (validity.ts Visibility), from the oracle itself: a value that acts
// on a strip of the fixture shows where the oracle judges that strip (it lies in the captured
// frame with room for a probe at this encoding); fullPage shows unless a selector overrides it.
// A pair holding the value counts as covered only there.
import type { ExtSent } from './extension-values.ts';
import type { OracleProfile } from './oracle.ts';
import { stripProbes } from './oracle.ts';
import { specCombo, type Param } from './parameters.ts';
import type { Values, Visibility } from './validity.ts';

/** What decides whether a strip is in the image and can be probed: the frame and the encoding. */
const FRAME = ['viewport', 'scale', 'fullPage', 'selector', 'format', 'quality'] as const;

/** The strips the oracle judges for these values (parameters not given: their first value, the default). */
function judged(params: readonly Param[], v: Values, profile: OracleProfile): Set<string> {
  const ids: Record<string, string> = Object.fromEntries(params.map((p) => [p.name, v[p.name] ?? p.values[0]!.id]));
  const ext = params
    .flatMap((p) => (p.field !== undefined ? [p.values.find((x) => x.id === ids[p.name])!.value as ExtSent] : []))
    .filter((e): e is NonNullable<ExtSent> => e !== null);
  return new Set(stripProbes({ combo: specCombo(ids), ext, profile }).map((x) => x.strip));
}

function onStrips(
  params: readonly Param[],
  param: string,
  value: string,
  strips: readonly string[],
  profile: OracleProfile,
  why: string,
  except?: readonly string[],
): Visibility {
  return {
    param,
    value,
    why,
    reads: FRAME.filter((n) => n !== param),
    shows: (v) => {
      const seen = judged(params, v, profile);
      return strips.some((s) => seen.has(s));
    },
    ...(except ? { except } : {}),
  };
}

export function visibilityOf(params: readonly Param[], profile: OracleProfile): Visibility[] {
  const has = (name: string, id: string) => params.some((p) => p.name === name && p.values.some((x) => x.id === id));
  const rules: Visibility[] = [];
  if (has('fullPage', 'on') && has('selector', 'off')) {
    // spec §2.1: fullPage is "Ignored when `selector` is set"; that pair itself is judged (the element's size).
    rules.push({
      param: 'fullPage',
      value: 'on',
      why: 'fullPage does nothing next to a selector',
      reads: ['selector'],
      shows: (v) => v.selector === 'off',
      except: ['selector'],
    });
  }
  for (const id of ['lid', 'lid+root'])
    if (has('hideSelectors', id)) rules.push(onStrips(params, 'hideSelectors', id, ['lid'], profile, 'the hidden element must be in the frame'));
  if (has('waitForSelector', 'on')) rules.push(onStrips(params, 'waitForSelector', 'on', ['late'], profile, 'the waited-for element must be in the frame'));
  if (profile === 'reference') {
    // The reference's JPEG and WebP decisions show where the page has no background.
    for (const id of ['jpeg', 'webp'])
      if (has('format', id)) rules.push(onStrips(params, 'format', id, ['clear', 'below'], profile, 'a region without background must be in the frame'));
  } else if (has('omitBackground', 'on')) {
    // Its pair with format is judged wherever it is: JPEG has no alpha, WebP's is left open by the spec.
    rules.push(onStrips(params, 'omitBackground', 'on', ['clear', 'below'], profile, 'a transparent region must be in the frame', ['format']));
  }
  for (const p of params) {
    if (p.field === undefined) continue;
    for (const x of p.values) {
      const strips = (x.value as ExtSent)?.effect.paints?.map(([s]) => s) ?? [];
      if (strips.length) rules.push(onStrips(params, p.name, x.id, strips, profile, `the strip ${p.name} paints must be in the frame`));
    }
  }
  return rules;
}
