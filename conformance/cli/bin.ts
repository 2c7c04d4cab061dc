#!/usr/bin/env node
// screenshot-conformance: runs the conformance suite against any implementation of the spec.
//   npx screenshot-conformance --base-url URL --api-key KEY [--profile core|reference|security] ...
// The installed package runs this file compiled (dist/conformance/cli/bin.js, package.json "bin");
// in the repository, `node --import tsx conformance/cli/bin.ts` (npm run conformance) runs the source.
// Exit status 0 only when every case passes or is an expected failure; usage errors exit 2.
// See RUNNING.md.
import { runIfEntry } from './entry.ts';
import { parseArgs, SUITE_VERSION, USAGE, UsageError } from './options.ts';

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`screenshot-conformance: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    throw e;
  }
  const { options, flags } = parsed;
  if (flags.help) {
    console.log(USAGE);
    return 0;
  }
  if (flags.version) {
    console.log(SUITE_VERSION);
    return 0;
  }
  // the cases, the engine and the reports load only for a command that needs them
  const { command } = await import('./commands.ts');
  return command(options, flags);
}

runIfEntry(import.meta.url, main);
