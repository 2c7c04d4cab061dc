// ESLint for the whole repository (flat config). The type check (tsc, strict) already catches
// unused names and type errors; these rules catch what it does not, each for a reason:
// - typescript-eslint's `recommended`: the common mistakes (unsafe declaration merging, `@ts-ignore`
//   without a reason, wrong `this` aliasing...);
// - no-floating-promises / no-misused-promises (type-aware): an unawaited promise in a render step
//   outlives its deadline, and an unhandled rejection crashes the server;
// - eqeqeq and no-var: loose equality and function-scoped variables hide bugs in the page scripts too;
// - `any` is allowed where a comment says why (CDP and puppeteer internals, JSON from the network):
//   `no-explicit-any` is off rather than sprinkled with disable comments.
// Page scripts (injected into pages) and the playground's script run in a browser, not in Node.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'conformance-report/**', 'fixtures/bench/**', 'fixtures/consent/*.html', 'scratch/**', 'conformance/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: true }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-explicit-any': 'off',
      // tsc's noUnusedLocals/noUnusedParameters already refuse unused names (and count a type-only use).
      '@typescript-eslint/no-unused-vars': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      // Control characters are matched on purpose: to strip them from messages and header values.
      'no-control-regex': 'off',
      // A room adds its fields' types to the request's (server/kinds/request.ts) by an interface
      // that only extends them: declaration merging needs an interface.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // node:test's test() and describe() return promises the runner itself awaits.
    files: ['**/*.test.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      '@typescript-eslint/no-unused-vars': 'off',
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
      // An empty catch is how a page script says "this page may forbid it; carry on".
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // Page scripts are serialised into pages: a file is one expression, or functions that the
    // loader concatenates into one script (server/cleanup/page: each file's functions call the others').
    files: ['server/*/page/*.js', 'conformance/self-test/subjects/firefox/page-cleanup.js'],
    languageOptions: {
      globals: {
        scShared: 'readonly',
        scDomFind: 'readonly',
        scDomKit: 'readonly',
        scConsentSniff: 'readonly',
        scGenericKit: 'readonly',
        scGenericBanner: 'readonly',
        scLayersMoving: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
);
