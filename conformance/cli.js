#!/usr/bin/env node
// The installed entry of screenshot-conformance (package.json "bin"): the suite is TypeScript run
// through tsx, registered here from this package's own dependencies, so that it starts from any
// folder (npx, a global install) without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./cli/bin.ts');
process.exit(await main(process.argv.slice(2)));
