// Demo: the bundled flow (tests/fixtures/todo.flow.yaml) on the bundled todo page, the side
// panel beside it. No model is needed: the flow replays by its XPaths. With SIGHTLINE_BASE_URL
// and SIGHTLINE_MODEL set it runs live: the model finds every element by its description.
// Writes the report, the GIF, every export and two screenshots to out/.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { launchWithExtension } from './playwright/lib/browser.mjs';
import { ROOT } from './root.mjs';
import { modelsFromEnv, openFlow, runFlowIn, summary } from './playwright/lib/flow-runner.mjs';

const FLOW = path.join(ROOT, 'tests', 'fixtures', 'todo.flow.yaml');
const OUT = path.join(ROOT, 'out');
const EXPORTS = [
  ['report', 'demo.report.html'],
  ['gif', 'demo.gif'],
  ['midscene-yaml', 'demo.yaml'],
  ['playwright', 'demo.spec.ts'],
  ['recorder', 'demo.recording.json'],
];

const headless = !process.env.DISPLAY;
const { model, planner } = modelsFromEnv();
const opened = await openFlow(FLOW);
const browser = await launchWithExtension({ headless, ...(opened.flow.viewport ? { viewport: opened.flow.viewport } : {}) });
try {
  console.log(model
    ? `live: ${model.model} at ${model.baseUrl} finds every element by its description`
    : 'replay: no model (set SIGHTLINE_BASE_URL and SIGHTLINE_MODEL to run it live); each element by its XPath');
  const page = await browser.context.newPage();
  await page.goto(opened.url);
  const panel = await browser.openPanel(await browser.tabIdOf(page));
  console.log(`${opened.flow.tasks.map((t) => t.name).join(' · ')}: ${opened.url}`);
  const { run } = await runFlowIn(browser, { ...opened, model, planner, live: !!model, page });
  const { text, code } = summary(run);
  console.log(text);

  const todos = await page.locator('.todo-list li').evaluateAll((items) => items.map((li) => li.textContent.replace('×', '').trim()));
  console.log(`the page lists ${todos.length} active todo(s): ${todos.join(', ') || 'none'}`);
  await panel.waitForSelector('#run-status:is(.succeeded, .unconfirmed, .failed, .stopped)');
  await page.screenshot({ path: path.join(OUT, 'demo-page.png') });
  await panel.screenshot({ path: path.join(OUT, 'demo-panel.png'), fullPage: true });
  const written = ['out/demo-page.png', 'out/demo-panel.png'];
  for (const [format, name] of EXPORTS) {
    const exported = await browser.sw.evaluate(([id, f]) => self.sightline.exportRun(id, f), [run.id, format]);
    const data = format === 'gif' ? Buffer.from(exported.slice(exported.indexOf(',') + 1), 'base64') : exported;
    await writeFile(path.join(OUT, name), data);
    written.push(`out/${name}`);
  }
  console.log(`written: ${written.join(', ')}`);
  if (!headless) {
    console.log('The browser stays open; close its window to finish.');
    await new Promise((resolve) => browser.context.on('close', resolve));
  }
  process.exitCode = code;
} finally {
  await browser.close().catch(() => {});
  await opened.close();
}
