// The properties: each a generator of requests and an oracle computed from the spec and the
// fixture's known geometry, never recorded; the relations set two captures of one drawn page
// beside each other (relations.ts). Every response of every property is also held to the rules
// every answer keeps: no 5xx but 504 render_timeout, every failure JSON {error, message} (spec
// §2.4, §7; property.ts everyAnswer).
import { deterministic, valid } from './captures.ts';
import { malformed } from './malformed.ts';
import { anyRequest } from './no-5xx.ts';
import type { Property } from './property.ts';
import { RELATIONS } from './relations.ts';
import { unknown } from './unknown.ts';

export type { Property, PropertyContext } from './property.ts';

export const PROPERTIES: readonly Property[] = [valid, malformed, unknown, anyRequest, deterministic, ...RELATIONS];
