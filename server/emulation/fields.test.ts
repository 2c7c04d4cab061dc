// The emulation fields through the one validation (server/request/validate.ts): bounds and
// field-naming 400s that never quote the value, one spelling per zone and tag, and what the fields
// mean together (./resolve.ts): a preset under explicit viewport and userAgent, deterministic under
// explicit timezone and reducedMotion. In a browser: test/api/emulation.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KnownDevices } from 'puppeteer-core';
import { ServiceError } from '../errors.ts';
import { DEFAULT_VIEWPORT, publicSchema } from '../request/schema.ts';
import { validateRequest } from '../request/validate.ts';
import { DEVICE_PRESETS, DEVICES_VERSION } from './devices.ts';
import { DEVICE_NAMES } from './fields.ts';
import { emulatedMedia } from './index.ts';

const html = '<p>x</p>';

function refusal(body: Record<string, unknown>): string {
  try {
    validateRequest(body);
  } catch (e) {
    assert.ok(e instanceof ServiceError && e.code === 'bad_request', String(e));
    return e.message;
  }
  assert.fail(`accepted: ${JSON.stringify(body)}`);
}

test("the device list is puppeteer-core's, versioned by its release, and the schema's enum", () => {
  assert.equal(DEVICE_PRESETS.size, Object.keys(KnownDevices).length);
  assert.ok(DEVICE_PRESETS.size > 100, `${DEVICE_PRESETS.size} presets`);
  assert.match(DEVICES_VERSION, /^puppeteer-core@\d+\.\d+\.\d+$/);
  const device = (publicSchema().properties as Record<string, { enum?: string[] }>).device!;
  assert.deepEqual(device.enum, DEVICE_NAMES);
  assert.deepEqual([...DEVICE_PRESETS.keys()], DEVICE_NAMES);
  const iphone = DEVICE_PRESETS.get('iPhone 15 Pro')!;
  assert.deepEqual(iphone.viewport, { width: 393, height: 659, deviceScaleFactor: 3 });
  assert.ok(iphone.mobile && iphone.touch && !iphone.landscape && iphone.userAgent.includes('iPhone'));
  for (const p of DEVICE_PRESETS.values())
    assert.ok(p.viewport.deviceScaleFactor <= 4 && p.viewport.deviceScaleFactor >= 0.1, `${p.name}: the spec's scale bound`);
  assert.equal(DEVICE_PRESETS.get('Galaxy S9+')!.viewport.deviceScaleFactor, 4, "its 4.5 held to the spec's 4");
});

test('a preset gives viewport and userAgent; what the caller sends wins, field by field', () => {
  const preset = DEVICE_PRESETS.get('Pixel 5')!;
  const plain = validateRequest({ html, device: 'Pixel 5' });
  assert.deepEqual(plain.viewport, preset.viewport);
  assert.equal(plain.userAgent, preset.userAgent);
  const sized = validateRequest({ html, device: 'Pixel 5', viewport: { width: 320, height: 240 } });
  assert.deepEqual(
    sized.viewport,
    { width: 320, height: 240, deviceScaleFactor: preset.viewport.deviceScaleFactor },
    "the preset's scale stays when none is sent",
  );
  assert.deepEqual(validateRequest({ html, device: 'Pixel 5', viewport: { width: 320, height: 240, deviceScaleFactor: 1 } }).viewport, {
    width: 320,
    height: 240,
    deviceScaleFactor: 1,
  });
  assert.equal(validateRequest({ html, device: 'Pixel 5', userAgent: 'Bot/1' }).userAgent, 'Bot/1');
  assert.deepEqual(validateRequest({ html }).viewport, DEFAULT_VIEWPORT, "no device: the spec's default");
  assert.equal(validateRequest({ html }).userAgent, undefined);
});

test('an unknown device: 400 naming the field and the closest presets, never the value', () => {
  const m = refusal({ html, device: 'iphone15pro-typo' });
  assert.match(m, /^device must be the name of a device preset \(GET \/v1\/devices lists them\): the closest are "iPhone 15 Pro", /);
  assert.ok(!m.includes('typo'), m);
  assert.match(refusal({ html, device: 7 }), /^device must be the name of a device preset \(GET \/v1\/devices lists them\)$/);
});

test('timezone: IANA names in any case, one spelling; others 400 naming the field', () => {
  assert.equal(validateRequest({ html, timezone: 'asia/tokyo' }).timezone, 'Asia/Tokyo');
  assert.equal(validateRequest({ html, timezone: 'UTC' }).timezone, 'UTC');
  assert.equal(validateRequest({ html, timezone: 'America/Port-au-Prince' }).timezone, 'America/Port-au-Prince');
  assert.equal(validateRequest({ html, timezone: 'US/Eastern' }).timezone, 'America/New_York', 'an alias: its zone');
  for (const bad of ['Mars/Olympus_Mons', '+09:00', 'Asia/Tokyo; DROP', '', 'a'.repeat(65), 'Europe/../../etc']) {
    const m = refusal({ html, timezone: bad });
    assert.equal(m, 'timezone must be an IANA time zone name such as "Europe/Zurich"', bad);
  }
});

test('locale: BCP 47 tags, one spelling; malformed ones 400 naming the field', () => {
  assert.equal(validateRequest({ html, locale: 'de-ch' }).locale, 'de-CH');
  assert.equal(validateRequest({ html, locale: 'zh-hant-tw' }).locale, 'zh-Hant-TW');
  assert.equal(validateRequest({ html, locale: 'fr' }).locale, 'fr');
  for (const bad of ['de_CH', 'english', 'de-CH,fr;q=0.9', 'x-private', 'en-US-u-ca-buddhist', 'e', 'de-CH\r\nX: 1']) {
    assert.match(refusal({ html, locale: bad }), /^locale must be a BCP 47 language tag/, bad);
  }
});

test('geolocation: bounds, accuracy defaults to 0, url mode only', () => {
  const req = validateRequest({ url: 'https://example.com/', geolocation: { latitude: 47.3769, longitude: 8.5417 } });
  assert.deepEqual(req.geolocation, { latitude: 47.3769, longitude: 8.5417, accuracy: 0 });
  assert.match(
    refusal({ url: 'https://example.com/', geolocation: { latitude: 91, longitude: 0 } }),
    /^geolocation\.latitude must be a number between -90 and 90$/,
  );
  assert.match(refusal({ url: 'https://example.com/', geolocation: { latitude: 0, longitude: -181 } }), /^geolocation\.longitude must be/);
  assert.match(refusal({ url: 'https://example.com/', geolocation: { latitude: 0, longitude: 0, accuracy: -1 } }), /^geolocation\.accuracy must be/);
  assert.match(refusal({ url: 'https://example.com/', geolocation: { latitude: 0 } }), /^geolocation\.longitude is required when geolocation is given$/);
  assert.match(refusal({ url: 'https://example.com/', geolocation: { latitude: 0, longitude: 0, altitude: 1 } }), /^geolocation must be/);
  assert.equal(refusal({ html, geolocation: { latitude: 0, longitude: 0 } }), 'geolocation is only allowed with url (it is granted to the target origin only)');
});

test('mediaType, reducedMotion, javaScriptEnabled: enums and defaults', () => {
  const req = validateRequest({ html });
  assert.equal(req.mediaType, 'screen');
  assert.equal(req.javaScriptEnabled, true);
  assert.equal(req.reducedMotion, undefined);
  assert.match(refusal({ html, mediaType: 'tv' }), /^mediaType must be one of "screen", "print"$/);
  assert.match(refusal({ html, reducedMotion: true }), /^reducedMotion must be one of "reduce", "no-preference"$/);
  assert.match(refusal({ html, javaScriptEnabled: 'no' }), /^javaScriptEnabled must be a boolean$/);
});

test('deterministic fixes time zone and motion unless the request does', () => {
  const d = validateRequest({ html, deterministic: true });
  assert.equal(d.timezone, 'UTC');
  assert.equal(d.reducedMotion, 'reduce');
  const own = validateRequest({ html, deterministic: true, timezone: 'Asia/Tokyo', reducedMotion: 'no-preference' });
  assert.equal(own.timezone, 'Asia/Tokyo');
  assert.equal(own.reducedMotion, 'no-preference');
  assert.equal(validateRequest({ html }).timezone, undefined, "without deterministic: the server's zone");
});

test('colorScheme, reducedMotion and mediaType: one media emulation (each call replaces all), none when nothing is asked', () => {
  assert.equal(emulatedMedia(validateRequest({ html })), undefined);
  assert.deepEqual(emulatedMedia(validateRequest({ html, colorScheme: 'dark', reducedMotion: 'reduce', mediaType: 'print' })), {
    media: 'print',
    features: [
      { name: 'prefers-color-scheme', value: 'dark' },
      { name: 'prefers-reduced-motion', value: 'reduce' },
    ],
  });
  assert.deepEqual(emulatedMedia(validateRequest({ html, deterministic: true })), {
    media: '',
    features: [{ name: 'prefers-reduced-motion', value: 'reduce' }],
  });
});
