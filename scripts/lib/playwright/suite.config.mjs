// The suite runner's Playwright Test config (scripts/suite writes the flow list and the output
// places into the environment): every YAML flow is one test of flows.spec.mjs, spread over the
// workers test by test (fullyParallel, so --shard splits by flow, not by file).
import { defineConfig } from '@playwright/test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.env.SIGHTLINE_SUITE_OUT ?? path.resolve('sightline-suite');

export default defineConfig({
  testDir: here,
  testMatch: 'flows.spec.mjs',
  fullyParallel: true,
  // One flow's bound (model calls included); scripts/suite --timeout sets it.
  timeout: Number(process.env.SIGHTLINE_SUITE_TIMEOUT_MS) || 300_000,
  outputDir: path.join(out, 'test-results'),
  // The window a flow runs in unless it says its own (`web: viewportWidth/Height`): scripts/run's.
  use: { viewport: { width: 1280, height: 800 } },
  // What scripts/suite asks for with --reporter and the PLAYWRIGHT_*_OUTPUT_* variables; these
  // are for `npx playwright test -c` by hand.
  reporter: [['list'], ['junit', { outputFile: path.join(out, 'junit.xml') }], ['html', { outputFolder: path.join(out, 'html'), open: 'never' }]],
});
