// One Playwright test per YAML flow (the JSON list of paths scripts/suite writes, at the path in
// SIGHTLINE_SUITE_FLOWS), each run through the extension's runFlow on the test's page, its items
// as steps and its Sightline report attached. From a batch index file (SIGHTLINE_SUITE_BATCH:
// `{file, web, share}`), the index's `web:` applies to every flow, and with `share` the tests
// of a worker keep one browser context.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { core } from './lib/core-node.mjs';
import { runError, runFlowOnPage, test } from './index.mjs';

const flows = process.env.SIGHTLINE_SUITE_FLOWS ? JSON.parse(readFileSync(process.env.SIGHTLINE_SUITE_FLOWS, 'utf8')) : [];
const root = process.env.SIGHTLINE_SUITE_ROOT || process.cwd();
const live = process.env.SIGHTLINE_SUITE_LIVE === '1';
const uploadDir = process.env.SIGHTLINE_SUITE_UPLOAD_DIR || undefined;
const dialogs = process.env.SIGHTLINE_SUITE_DIALOGS || undefined;
const headless = process.env.SIGHTLINE_SUITE_HEADED !== '1';
const batch = process.env.SIGHTLINE_SUITE_BATCH ? JSON.parse(readFileSync(process.env.SIGHTLINE_SUITE_BATCH, 'utf8')) : null;

test.use({ sightlineBrowser: { headless }, sightlineRunOptions: dialogs ? { dialogs } : {}, sightlineShareContext: batch?.share === true });

for (const file of flows) {
  test(path.relative(root, file), async ({ sightline, sightlineModel, sightlinePlanner, sightlineRunOptions, page }) => {
    const run = await runFlowOnPage(test, { sightline, sightlineModel, sightlinePlanner, sightlineRunOptions, page }, { file, uploadDir, live, batch });
    // How the batch summary names this end (the core's word: partly failed when only tasks
    // with continueOnError failed), for scripts/suite to read from the JSON report.
    if (batch) test.info().annotations.push({ type: 'sightline-result', description: core.batchResultType(run) });
    const error = runError(run);
    if (error) throw error;
  });
}
