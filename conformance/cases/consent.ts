// Cases generated from fixtures/consent/manifest.json (written with the consent fixtures): one
// page, its probes and the expected x-banner-action become cases. PLACEHOLDER until the manifest
// exists: no cases.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CONSENT_DIR } from '../fixtures.ts';
import type { Case } from '../model.ts';

export const CONSENT_MANIFEST = path.join(CONSENT_DIR, 'manifest.json');

export function consentCases(): Case[] {
  if (!existsSync(CONSENT_MANIFEST)) return [];
  void readFileSync;
  return [];
}
