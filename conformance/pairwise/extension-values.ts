// The value classes of request fields beyond the spec (the `extensions` profile), as data: one
// entry per field, each value with what it makes the fixture show (fixture.ts: a strip it paints,
// or the late element being there without a wait). A field whose effect the fixture cannot show
// yet gets a strip there first (fixture.ts, then write-fixture.ts). Every field also has the class
// "not sent", added here, so that a case names only the fields it needs.
import type { Constraint } from './covering.ts';
import { ACTION_KEY, AGENT, SCHEME_DARK, SCRIPT, SIGNAL_ON, stripNamed, type Rgb, type StripName } from './fixture.ts';
import type { Body, FieldValue, Param } from './parameters.ts';

export interface ExtEffect {
  /** Strips this value paints, with their colour. */
  paints?: ReadonlyArray<readonly [StripName, Rgb]>;
  /** The late element is there at the capture without waitForSelector (its timer has run). */
  showsLate?: boolean;
  /** Why the canvas (where the page paints nothing, omitBackground false) has no stated colour with this value. */
  canvasOpen?: string;
}

export interface ExtValueSpec {
  id: string;
  /** The field's JSON value. */
  json: unknown;
  effect: ExtEffect;
  words: string;
  cost?: number;
}

export interface ExtField {
  field: string;
  /** Its rule id in rules.ts (`X/<field>`). */
  rule: string;
  values: readonly ExtValueSpec[];
  /** Values of this field that cannot meet spec values (parameter names as in SPEC_PARAMS), and why. */
  constraints?: readonly Constraint[];
}

/** A sent extension value: its field and effect (null: the field is not sent). */
export type ExtSent = { field: string; json: unknown; effect: ExtEffect } | null;

export const EXTENSION_FIELDS: readonly ExtField[] = [
  {
    field: 'colorScheme',
    rule: 'X/colorScheme',
    values: [
      { id: 'light', json: 'light', effect: { paints: [['scheme', stripNamed('scheme').rgb!]] }, words: 'colorScheme light' },
      {
        id: 'dark',
        json: 'dark',
        effect: {
          paints: [['scheme', SCHEME_DARK]],
          // The field emulates the media feature; what the browser paints where the page paints
          // nothing under a dark preference is the engine's (Chromium's emulation: #121212).
          canvasOpen: "the canvas under a dark preference is the engine's",
        },
        words: 'colorScheme dark',
      },
    ],
  },
  {
    field: 'userAgent',
    rule: 'X/userAgent',
    values: [{ id: 'agent', json: AGENT, effect: { paints: [['agent', SIGNAL_ON]] }, words: 'a userAgent' }],
  },
  {
    field: 'deterministic',
    rule: 'X/deterministic',
    // Virtual time from 2025 whose timers run ahead before the capture: the clock strip reads the
    // year, and the late element's timer has fired by then, with or without waitForSelector.
    values: [{ id: 'on', json: true, effect: { paints: [['clock', SIGNAL_ON]], showsLate: true }, words: 'deterministic', cost: 1 }],
  },
  // The preparation fields: each paints a strip of the card, so that an implementation that drops
  // one only next to some capture mode (a selector, a full page) fails where they meet.
  {
    field: 'js',
    rule: 'X/js',
    values: [{ id: 'paint', json: SCRIPT, effect: { paints: [['script', SIGNAL_ON]] }, words: 'a js that paints a strip' }],
  },
  {
    field: 'actions',
    rule: 'X/actions',
    values: [{ id: 'press', json: [{ press: ACTION_KEY }], effect: { paints: [['action', SIGNAL_ON]] }, words: `actions [press ${ACTION_KEY}]` }],
  },
];

/** An extension field as a parameter of the generator: "not sent" first, then its values. */
export function extParam(f: ExtField): Param<ExtSent> {
  const absent: FieldValue<ExtSent> = { id: 'absent', value: null, rules: [], words: null, cost: 0 };
  return {
    name: f.field,
    field: f.field,
    values: [
      absent,
      ...f.values.map((x): FieldValue<ExtSent> => ({
        id: x.id,
        value: { field: f.field, json: x.json, effect: x.effect },
        rules: [f.rule],
        words: x.words,
        cost: 1 + (x.cost ?? 0),
      })),
    ],
    write: (b: Body, s) => {
      if (s) b[s.field] = s.json;
    },
    paths: [[f.field]],
  };
}

export const EXT_PARAMS: readonly Param<ExtSent>[] = EXTENSION_FIELDS.map(extParam);
export const EXT_CONSTRAINTS: readonly Constraint[] = EXTENSION_FIELDS.flatMap((f) => f.constraints ?? []);
