// The fixture spec of tests/e2e/suite.test.mjs, run by `playwright test -c` (its reporters and
// output places come from the command line and PLAYWRIGHT_*_OUTPUT_* variables).
import { defineConfig } from '@playwright/test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  testDir: path.dirname(fileURLToPath(import.meta.url)),
  testMatch: '*.spec.mjs',
  timeout: 90_000,
  workers: 1,
});
