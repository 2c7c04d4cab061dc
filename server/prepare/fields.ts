// The request fields that prepare the page before the picture: css, js, actions and delay, spread
// into the one request schema (server/request/schema.ts). What they do, and in which order, is in
// ./index.ts. ACTIONS_MAX is a request kind (server/kinds/): each action is a named render step.
import { ACTIONS_MAX, type FieldsOf } from '../kinds/request.ts';

/** css and js: at most this many UTF-8 bytes each (checked by the `x-max-bytes` keyword, validate.ts). */
export const SOURCE_MAX_BYTES = 100_000;
/** A selector of an action: shorter than `selector`'s bound, an action names one element. */
export const ACTION_SELECTOR_MAX_CHARS = 1000;
/** `type`: text typed key by key (about 2 ms a key), so that typing stays well inside the budget. */
export const TYPE_TEXT_MAX_CHARS = 1000;
export const WAIT_FOR_FUNCTION_MAX_CHARS = 10_000;
export const WAIT_MAX_MS = 10_000;
export const DELAY_MAX_MS = 10_000;

/** Keys `press` knows by name (KeyboardEvent.key values); any single printable ASCII character is a key too. */
export const NAMED_KEYS = [
  'Enter',
  'Tab',
  'Escape',
  'Backspace',
  'Delete',
  'Insert',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'Space',
  ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
] as const;
export const MODIFIER_KEYS = ['Shift', 'Control', 'Alt', 'Meta'] as const;
/** `Enter`, `a`, `Shift+Tab`, `Control+Shift+ArrowLeft`: modifiers joined with `+` before one key. */
export const KEY_PATTERN = `^(?:(?:${MODIFIER_KEYS.join('|')})\\+){0,4}(?:[!-~]|${NAMED_KEYS.join('|')})$`;

const selector = (description: string) =>
  ({
    type: 'string',
    minLength: 1,
    maxLength: ACTION_SELECTOR_MAX_CHARS,
    description,
    'x-rule': `a non-empty CSS selector of at most ${ACTION_SELECTOR_MAX_CHARS} characters`,
  }) as const;

export const cssField = {
  type: 'string',
  maxLength: SOURCE_MAX_BYTES,
  'x-max-bytes': SOURCE_MAX_BYTES,
  description:
    `A stylesheet applied to the top document as soon as it has loaded (before the waits, the clean-up and the capture), also when the ` +
    `page's Content-Security-Policy forbids inline styles; at most ${SOURCE_MAX_BYTES} UTF-8 bytes. @import rules are ignored. Never logged ` +
    'or stored (the cache key holds a hash).',
  'x-rule': `a string of at most ${SOURCE_MAX_BYTES} UTF-8 bytes`,
} as const;

export const jsField = {
  type: 'string',
  minLength: 1,
  maxLength: SOURCE_MAX_BYTES,
  'x-max-bytes': SOURCE_MAX_BYTES,
  description:
    "JavaScript run in the top document's main world (it can call the page's own functions), also under a Content-Security-Policy " +
    'that forbids scripts, after the waits, the clean-up and the actions and before the capture. It is the body of an async function: ' +
    '`await` and `return` work, a returned promise is awaited; declare globals on `window`. A script that throws answers 422 script_error ' +
    `with the error's message. At most ${SOURCE_MAX_BYTES} UTF-8 bytes. Never logged or stored (the cache key holds a hash).`,
  'x-rule': `a non-empty string of at most ${SOURCE_MAX_BYTES} UTF-8 bytes`,
} as const;

/** The action kinds, each the one key of an action object (`type` also takes `text`). */
export const ACTION_KINDS = ['click', 'hover', 'type', 'press', 'scrollTo', 'waitForSelector', 'waitForHidden', 'waitForFunction', 'wait'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];
/** How each action is written, for messages and descriptions. */
const ACTION_SHAPES: Record<ActionKind, string> = {
  click: '{click: selector}',
  hover: '{hover: selector}',
  type: '{type: selector, text}',
  press: '{press: key}',
  scrollTo: '{scrollTo: selector}',
  waitForSelector: '{waitForSelector: selector}',
  waitForHidden: '{waitForHidden: selector}',
  waitForFunction: '{waitForFunction: expression}',
  wait: '{wait: milliseconds}',
};
const SHAPES = ACTION_KINDS.map((k) => ACTION_SHAPES[k]).join(', ');

export const actionsField = {
  type: 'array',
  maxItems: ACTIONS_MAX,
  items: {
    type: 'object',
    properties: {
      click: selector('Click the first element matching this CSS selector (scrolled into view, clicked at its centre).'),
      hover: selector('Move the mouse over the first element matching this CSS selector.'),
      type: selector('Focus the first element matching this CSS selector and type `text` into it, key by key (appended to what it holds).'),
      text: {
        type: 'string',
        maxLength: TYPE_TEXT_MAX_CHARS,
        description: 'With type: the text to type.',
        'x-rule': `a string of at most ${TYPE_TEXT_MAX_CHARS} characters`,
      },
      press: {
        type: 'string',
        pattern: KEY_PATTERN,
        description: `Press a key: a printable character or ${NAMED_KEYS.join(', ')}, optionally after modifiers (${MODIFIER_KEYS.join('+, ')}+): \`Enter\`, \`Shift+Tab\`.`,
        'x-rule': `a key name (a printable character, ${NAMED_KEYS.slice(0, 4).join(', ')}, ...; modifiers as Shift+, Control+, Alt+, Meta+)`,
      },
      scrollTo: selector('Scroll the first element matching this CSS selector to the top of the window.'),
      waitForSelector: selector('Wait until an element matches this CSS selector.'),
      waitForHidden: selector('Wait until no element matching this CSS selector is visible (none in the document, or display:none / visibility:hidden).'),
      waitForFunction: {
        type: 'string',
        minLength: 1,
        maxLength: WAIT_FOR_FUNCTION_MAX_CHARS,
        description:
          "Wait until this JavaScript expression, evaluated in the page's main world every 100 ms, is truthy (a promise is awaited). An expression that throws answers 422 script_error.",
        'x-rule': `a JavaScript expression of at most ${WAIT_FOR_FUNCTION_MAX_CHARS} characters`,
      },
      wait: {
        type: 'integer',
        minimum: 0,
        maximum: WAIT_MAX_MS,
        description: `Wait this many milliseconds (0 to ${WAIT_MAX_MS}).`,
        'x-rule': `an integer number of milliseconds between 0 and ${WAIT_MAX_MS}`,
      },
    },
    additionalProperties: false,
    // Exactly one action per object (text goes with type only): one branch per kind.
    oneOf: [
      { required: ['click'], maxProperties: 1 },
      { required: ['hover'], maxProperties: 1 },
      { required: ['type', 'text'], maxProperties: 2 },
      { required: ['press'], maxProperties: 1 },
      { required: ['scrollTo'], maxProperties: 1 },
      { required: ['waitForSelector'], maxProperties: 1 },
      { required: ['waitForHidden'], maxProperties: 1 },
      { required: ['waitForFunction'], maxProperties: 1 },
      { required: ['wait'], maxProperties: 1 },
    ],
    'x-rule': `an object with exactly one action: ${SHAPES}`,
  },
  description:
    `Up to ${ACTIONS_MAX} steps run in order after the waits and the cookie-banner clean-up, before js and the capture, each one object: ` +
    `${SHAPES}. An action whose element does not exist answers ` +
    '400 selector_not_found naming it (wait for it first with waitForSelector); each is a step of the 20 s render budget.',
  'x-rule': `an array of at most ${ACTIONS_MAX} action objects`,
} as const;

export const delayField = {
  type: 'integer',
  minimum: 0,
  maximum: DELAY_MAX_MS,
  default: 0,
  description: `Milliseconds (0 to ${DELAY_MAX_MS}) waited after everything else (waits, clean-up, actions, js), right before the capture.`,
  'x-rule': `an integer number of milliseconds between 0 and ${DELAY_MAX_MS}`,
} as const;

/** Their types, part of every ScreenshotRequest (server/kinds/request.ts). */
declare module '../kinds/request.ts' {
  interface RequestExtensions extends FieldsOf<{ css: typeof cssField; js: typeof jsField; actions: typeof actionsField; delay: typeof delayField }> {}
}
