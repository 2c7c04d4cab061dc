// All cases (REST and MCP alike), and the selection of cases for a run (profiles). Cases are data;
// see model.ts.
import type { Case, CaseSpec, Profile } from '../model/model.ts';
import { RULES_BY_ID } from '../model/rules.ts';
import { consentCases } from './consent.ts';
import { coreBehaviourCases } from './core-behaviour.ts';
import { coreCaptureCases } from './core-capture.ts';
import { corePictureCases } from './core-picture.ts';
import { coreRequestCases } from './core-request.ts';
import { compareCases } from './ext-compare.ts';
import { extPrepareCases } from './ext-prepare.ts';
import { emulationCases } from './ext-emulation.ts';
import { extensionCases } from './extensions.ts';
import { extTallCases } from './ext-tall.ts';
import { mcpCoreCases, mcpReferenceCases } from './mcp.ts';
import { limitsCases } from '../limits/cases.ts';
import { pairwiseCases } from '../pairwise/cases.ts';
import { referenceCases } from './reference.ts';
import { referenceBillingCases } from './reference-billing.ts';
import { securityCases } from './security.ts';

/** The cases of one list, in the profile that list is (the only place a written case gets its profile). */
const inProfile = (profile: Profile, cases: readonly CaseSpec[]): Case[] => cases.map((c) => ({ ...c, profile }));

export function allCases(): Case[] {
  const list = [
    ...inProfile('core', coreRequestCases),
    ...inProfile('core', coreCaptureCases),
    ...inProfile('core', corePictureCases),
    ...inProfile('core', coreBehaviourCases),
    ...consentCases(), // profiles from the fixtures' manifest
    ...inProfile('core', mcpCoreCases),
    ...inProfile('reference', mcpReferenceCases),
    ...inProfile('reference', referenceCases),
    ...inProfile('reference', referenceBillingCases),
    ...inProfile('security', securityCases),
    ...inProfile('extensions', extensionCases),
    ...inProfile('extensions', emulationCases),
    ...inProfile('extensions', extPrepareCases),
    ...inProfile('extensions', extTallCases),
    ...inProfile('extensions', compareCases),
    ...pairwiseCases(), // profiles from their plans
    ...limitsCases(), // profiles from the fields they bound
  ];
  validateCases(list);
  return list;
}

/**
 * `core`: the spec only. `reference`: core plus the reference server's decisions (DESIGN §3).
 * `security`: the threat model's cases. `extensions`: fields beyond the spec, each case run only
 * where the implementation declares its fields. Profiles combine.
 */
export function selectCases(profiles: Profile[], cases = allCases()): Case[] {
  const want = new Set<Profile>(profiles);
  if (want.has('reference')) want.add('core');
  return cases.filter((c) => want.has(c.profile));
}

/** Structural checks that keep the case data honest (also run as a self-test). */
export function validateCases(list: Case[]): void {
  const seen = new Set<string>();
  for (const c of list) {
    if (seen.has(c.id)) throw new Error(`duplicate case id ${c.id}`);
    seen.add(c.id);
    if (!/^The (service|reference server|MCP server) MUST\b/.test(c.must)) throw new Error(`case ${c.id}: "must" must be one "The service MUST ..." sentence`);
    if (c.rules.length === 0) throw new Error(`case ${c.id} checks no rule`);
    // An extension case runs only where its fields are declared; no other case may need one.
    if ((c.profile === 'extensions') !== (c.fields !== undefined && c.fields.length > 0))
      throw new Error(`case ${c.id}: extensions cases, and only they, name the fields beyond the spec they send`);
    for (const r of c.rules) if (!RULES_BY_ID.has(r)) throw new Error(`case ${c.id}: unknown rule id ${r}`);
    const steps = [c.expect, ...(c.then ?? []).map((s) => s.expect)];
    for (const e of steps) {
      if (e.image && e.status === 200 && !e.golden && (e.probes?.length ?? 0) === 0 && !e.relation && !e.headers && !e.text && e.image.maxBytes === undefined) {
        throw new Error(`case ${c.id}: an image case needs at least one probe, relation, header, text or size check`);
      }
      if (e.golden && (e.probes?.length ?? 0) === 0) throw new Error(`case ${c.id}: a golden alone only says "same as last time"; add a probe`);
    }
  }
}
