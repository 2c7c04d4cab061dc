// What the timezone and locale formats accept (ajv formats named in ./fields.ts, registered by
// server/request/validate.ts), and the one spelling each is applied in (./resolve.ts), so that
// `asia/tokyo` and `Asia/Tokyo`, or `de-ch` and `de-CH`, are one request and one cache entry.
// Node's ICU answers: the browser's knows the same zones (an unknown one is still refused by the
// browser's own check, ./index.ts).
import { LOCALE_FORMAT, TIMEZONE_FORMAT } from './fields.ts';

/** The zone's canonical name (case as IANA spells it), or undefined when ICU does not know it. */
export function canonicalTimeZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The tag's canonical form (de-ch -> de-CH), or undefined when it is not a well-formed BCP 47 tag. */
export function canonicalLocale(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

export const EMULATION_FORMATS: Readonly<Record<string, (s: string) => boolean>> = {
  [TIMEZONE_FORMAT]: (s) => canonicalTimeZone(s) !== undefined,
  [LOCALE_FORMAT]: (s) => canonicalLocale(s) !== undefined,
};
