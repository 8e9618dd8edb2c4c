// The JS lint gate (scripts/test runs `npx eslint .`): eslint's recommended rules plus a few
// that catch real bugs, with each folder's globals (the extension's pages, its service worker,
// the Node scripts and tests), so an undefined name is an error wherever it runs.
import js from '@eslint/js';
import globals from 'globals';

export default [
  // Built or installed, not written here.
  { ignores: ['dist/**', 'dist.tmp/**', 'target/**', 'node_modules/**', 'out/**', 'crate/fuzz/target/**', 'test-results/**', 'midscene_run/**'] },
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'none', ignoreRestSiblings: true }],
      'no-undef': 'error',
      'no-shadow-restricted-names': 'error',
      'no-self-compare': 'error',
      'no-template-curly-in-string': 'error',
      'no-unreachable-loop': 'error',
      'no-constructor-return': 'error',
      'array-callback-return': ['error', { checkForEach: false }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  // The extension's pages (panel, options) and its content script.
  {
    files: ['extension/**/*.js'],
    languageOptions: { globals: { ...globals.browser, ...globals.webextensions } },
  },
  // The content script runs after wasm/reader.js, which defines the reader as a global.
  {
    files: ['extension/content/**/*.js'],
    languageOptions: { globals: { sightlineReader: 'readonly', sightlineElementAtPath: 'readonly' } },
  },
  // The service worker: no window, no document.
  {
    files: ['extension/background/**/*.js'],
    languageOptions: { globals: { ...globals.serviceworker, ...globals.webextensions } },
  },
  // Pages the tests serve to the browser, and the page reader's JS half (wasm-bindgen snippets
  // of crate/reader, run in the content script).
  {
    files: ['tests/fixtures/**/*.js', 'crate/*/src/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
  // Node: this file, the scripts, the test support and the tests. Scripts and tests also hand
  // functions to the browser (page.evaluate in a page, sw.evaluate in the extension's worker),
  // so browser and extension names are defined there too.
  {
    files: ['eslint.config.js'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['scripts/**/*.mjs', 'tests/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser, ...globals.serviceworker, ...globals.webextensions } },
  },
  // Tests depend on the scripts' helpers, never the other way round.
  {
    files: ['scripts/**/*.mjs'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '(^|/)tests/', message: 'scripts/ imports nothing from tests/: shared helpers live in scripts/lib.' }],
      }],
    },
  },
  // The npm package is self-contained: what it runs is in its folder (its tarball has nothing else).
  {
    files: ['scripts/lib/playwright/**/*.mjs'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^\\.\\./\\.\\.|(^|/)(scripts|tests|dist)/', message: '@sightline/playwright imports only its own files and its declared dependencies.' }],
      }],
    },
  },
];
