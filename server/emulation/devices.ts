// The device presets: puppeteer-core's device descriptors (KnownDevices), the list Chrome
// DevTools' device toolbar started from, maintained with each puppeteer release. The installed
// puppeteer-core's version (pinned in package.json) is the list's version, so a client can tell
// when the presets changed. GET /v1/devices (./route.ts) serves what is here.
import { createRequire } from 'node:module';
import { KnownDevices } from 'puppeteer-core';
import { specProperties } from '../kinds/request.ts';
import { DEVICE_NAMES } from './fields.ts';

export type DeviceName = (typeof DEVICE_NAMES)[number];

export interface DevicePreset {
  name: DeviceName;
  viewport: { width: number; height: number; deviceScaleFactor: number };
  /** A mobile viewport: the page's <meta name="viewport"> applies, as on a phone. */
  mobile: boolean;
  touch: boolean;
  landscape: boolean;
  userAgent: string;
}

const puppeteerVersion: string = createRequire(import.meta.url)('puppeteer-core/package.json').version;

/** The list's version: the puppeteer-core release its descriptors come from. */
export const DEVICES_VERSION = `puppeteer-core@${puppeteerVersion}`;

/**
 * A preset as the service applies it. The scale factor is held to the spec's bound (§2.2: 0.1 to
 * 4, the schema's viewport.deviceScaleFactor), which one phone exceeds (Galaxy S9+, 4.5): its
 * layout is the phone's, its picture a little less sharp.
 */
function preset(name: DeviceName): DevicePreset {
  const d = KnownDevices[name];
  const scale = specProperties.viewport.properties.deviceScaleFactor;
  const v = d.viewport;
  return {
    name,
    viewport: { width: v.width, height: v.height, deviceScaleFactor: Math.min(scale.maximum, Math.max(scale.minimum, v.deviceScaleFactor ?? 1)) },
    mobile: v.isMobile ?? false,
    touch: v.hasTouch ?? false,
    landscape: v.isLandscape ?? false,
    userAgent: d.userAgent,
  };
}

/** Every preset, by name, in puppeteer's order. */
export const DEVICE_PRESETS: ReadonlyMap<DeviceName, DevicePreset> = new Map(DEVICE_NAMES.map((n) => [n, preset(n)]));

export function devicePreset(name: DeviceName): DevicePreset {
  const p = DEVICE_PRESETS.get(name);
  if (!p) throw new Error(`no device preset named ${name}`); // unreachable: the schema's enum is DEVICE_NAMES
  return p;
}
