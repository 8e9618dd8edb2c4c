// One Playwright test per YAML flow (the JSON list of paths scripts/suite writes, at the path in
// SIGHTLINE_SUITE_FLOWS), each run through the extension's runFlow on the test's page, its items
// as steps and its Sightline report attached.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runError, runFlowOnPage, test } from './index.mjs';

const flows = process.env.SIGHTLINE_SUITE_FLOWS ? JSON.parse(readFileSync(process.env.SIGHTLINE_SUITE_FLOWS, 'utf8')) : [];
const root = process.env.SIGHTLINE_SUITE_ROOT || process.cwd();
const live = process.env.SIGHTLINE_SUITE_LIVE === '1';
const uploadDir = process.env.SIGHTLINE_SUITE_UPLOAD_DIR || undefined;
const dialogs = process.env.SIGHTLINE_SUITE_DIALOGS || undefined;
const headless = process.env.SIGHTLINE_SUITE_HEADED !== '1';

test.use({ sightlineBrowser: { headless }, sightlineRunOptions: dialogs ? { dialogs } : {} });

for (const file of flows) {
  test(path.relative(root, file), async ({ sightline, sightlineModel, sightlinePlanner, sightlineRunOptions, page }) => {
    const run = await runFlowOnPage(test, { sightline, sightlineModel, sightlinePlanner, sightlineRunOptions, page }, { file, uploadDir, live });
    const error = runError(run);
    if (error) throw error;
  });
}
