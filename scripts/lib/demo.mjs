// Demo driver: the bundled todo page, the side panel as a tab beside it, one instruction.
import { launchWithExtension } from '../../tests/support/browser.mjs';
import { startMockModel, todoPlanReply } from '../../tests/support/mock-model.mjs';
import { startStaticServer } from '../../tests/support/static-server.mjs';

const instruction = process.argv.slice(2).join(' ') || 'add a todo ‘buy milk’';
const headless = !process.env.DISPLAY;
const live = process.env.SIGHTLINE_BASE_URL && process.env.SIGHTLINE_MODEL;

const site = await startStaticServer();
const mock = live ? null : await startMockModel();
mock?.setFallback(todoPlanReply());
const browser = await launchWithExtension({ headless });
try {
  const model = live
    ? {
        baseUrl: process.env.SIGHTLINE_BASE_URL,
        model: process.env.SIGHTLINE_MODEL,
        apiKey: process.env.SIGHTLINE_API_KEY ?? '',
        family: process.env.SIGHTLINE_FAMILY ?? 'generic',
        provider: process.env.SIGHTLINE_PROVIDER ?? 'custom', // e.g. anthropic for its Messages API
      }
    : { baseUrl: mock.baseUrl, model: 'mock-model', apiKey: '', family: 'generic' };
  await browser.sw.evaluate((m) => self.sightline.setSettings({ model: m }), model);
  console.log(live ? `model: ${model.model} at ${model.baseUrl}` : `model: local mock at ${mock.baseUrl} (set SIGHTLINE_BASE_URL and SIGHTLINE_MODEL for a real one)`);

  const page = await browser.context.newPage();
  await page.goto(site.url('/todo.html'));
  const tabId = await browser.tabIdOf(page);
  const panel = await browser.openPanel(tabId);
  await panel.setViewportSize({ width: 420, height: 800 });
  await panel.fill('#instruction', instruction);
  await panel.click('#run-button');
  await panel.waitForSelector('#run-status:is(.succeeded, .failed, .stopped)', { timeout: 180_000 });
  const status = await panel.textContent('#run-status');
  const error = await panel.textContent('#run-error');
  await page.screenshot({ path: 'out/demo-page.png' });
  await panel.screenshot({ path: 'out/demo-panel.png', fullPage: true });
  console.log(`run ${status}${error ? `: ${error}` : ''}`);
  console.log('screenshots: out/demo-page.png, out/demo-panel.png');
  if (!headless) {
    console.log('The browser stays open; close its window to finish.');
    await new Promise((resolve) => browser.context.on('close', resolve));
  }
  process.exitCode = status === 'succeeded' ? 0 : 1;
} finally {
  await browser.close().catch(() => {});
  await Promise.all([site.close(), mock?.close()]);
}
