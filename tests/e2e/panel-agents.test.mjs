// The panel's layout fixes of issue 44 and Allow agents' ready-to-paste snippets, in real
// Chromium: step thumbnails in the content column and big enough to read, the Allow agents
// checkbox beside its label, each MCP client's snippet valid for it, and Copy says it copied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { todoPlanReply } from '../support/mock-model.mjs';
import { modelSuite, until } from '../support/suite.mjs';

let browser, mock, site;

modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-test-panel-agents-0123456789', family: 'generic' }),
});

/** A port nothing listens on: the worker's attempts to reach sightline-mcp there find no one. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** The box of the first element `selector` finds in `page`. */
const box = async (page, selector) => {
  const b = await page.locator(selector).first().boundingBox();
  assert.ok(b, `${selector} is shown`);
  return b;
};

test('step thumbnails sit in the content column, at least 120 px wide', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/todo.html?case=panel-agents'));
  await page.waitForSelector('.new-todo');
  mock.script(todoPlanReply());
  const panel = await browser.openPanel(await browser.tabIdOf(page));
  await panel.waitForFunction(() => document.getElementById('target-title').textContent.includes('todos'));
  await panel.fill('#instruction', 'add a todo ‘buy milk’');
  await panel.click('button[type=submit]');
  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  await panel.waitForFunction(() => [...document.querySelectorAll('#steps .shot img')].some((i) => i.complete && i.naturalWidth > 0));
  const step = panel.locator('#steps .step', { has: panel.locator('.shot') }).first();
  const [icon, what, shot] = await Promise.all(['.icon', '.what', '.shot'].map((s) => step.locator(s).boundingBox()));
  assert.ok(shot.x >= what.x - 1, `the thumbnail starts in the content column (x ${shot.x}), not the icon's (${icon.x}..${icon.x + icon.width})`);
  assert.ok(shot.x > icon.x + icon.width, 'right of the icon');
  assert.ok(shot.width >= 120, `the thumbnail is ${shot.width} px wide`);
  await panel.screenshot({ path: 'out/e2e-panel-agents-steps.png', fullPage: true });
  await panel.close();
  await page.close();
});

test('Allow agents: the checkbox beside its label; a snippet for each MCP client; Copy says it copied', async () => {
  const panel = await browser.openPanel();
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const check = await box(panel, '#agents-enabled');
  const label = await box(panel, '.agents .check span');
  assert.ok(check.width < 40, `the checkbox is ${check.width} px wide`);
  assert.ok(label.x > check.x + check.width - 1 && Math.abs((label.y + label.height / 2) - (check.y + check.height / 2)) < 6,
    `the label is beside the checkbox: checkbox ${JSON.stringify(check)}, label ${JSON.stringify(label)}`);

  await panel.locator('#agents-enabled').check();
  await panel.waitForSelector('#agents-details:not([hidden])');
  const port = await freePort();
  await panel.fill('#agents-port', String(port));
  await panel.locator('#agents-port').dispatchEvent('change');
  const args = ['--stdio', '--port', String(port), '--extension-id', browser.extensionId];
  const command = `sightline-mcp ${args.join(' ')}`;
  const shown = () => panel.locator('#agents-command').textContent();
  await until('the new port in the command', async () => (await shown()) === command);
  assert.doesNotMatch(await panel.locator('#agents-client-hint').textContent(), /^\s*$/);

  const expected = {
    terminal: (text) => assert.equal(text, command),
    claude: (text) => assert.equal(text, `claude mcp add sightline -- ${command}`),
    'mcp-json': (text) => assert.deepEqual(JSON.parse(text), { mcpServers: { sightline: { command: 'sightline-mcp', args } } }),
    vscode: (text) => assert.deepEqual(JSON.parse(text), { servers: { sightline: { type: 'stdio', command: 'sightline-mcp', args } } }),
  };
  const token = await panel.locator('#agents-token').textContent();
  assert.ok(token.length >= 20);
  const hints = new Set();
  for (const [client, check] of Object.entries(expected)) {
    await panel.selectOption('#agents-client', client);
    const text = await shown();
    check(text);
    assert.ok(!text.includes(token), `${client}: the token is in no snippet`);
    hints.add(await panel.locator('#agents-client-hint').textContent());
    await panel.click('#agents-copy');
    await until(`${client} copied`, async () => (await panel.evaluate(() => navigator.clipboard.readText())) === text);
    assert.match(await panel.locator('#agents-copied').textContent(), /^Copied/);
  }
  assert.equal(hints.size, 4, 'each client has its own hint');
  await panel.click('#agents-copy-token');
  await until('the token copied', async () => (await panel.evaluate(() => navigator.clipboard.readText())) === token);
  assert.match(await panel.locator('#agents-copied').textContent(), /Copied the token/);
  // The form the person picked shows, as the screenshot keeps it.
  await panel.selectOption('#agents-client', 'mcp-json');
  await panel.locator('#agents').scrollIntoViewIfNeeded();
  await panel.locator('#agents').screenshot({ path: 'out/e2e-panel-agents.png' });

  // And the words come from the locale files: the Chinese ones under zh_CN.
  await browser.sw.evaluate(() => self.sightline.setSettings({ ui: { language: 'zh_CN' } }));
  await panel.reload();
  await panel.waitForSelector('#agents-details:not([hidden])');
  assert.equal(await panel.locator('#agents-copy').textContent(), '复制');
  assert.equal(await panel.locator('#agents-client option[value=terminal]').textContent(), '终端');
  await panel.click('#agents-copy');
  await until('the Chinese copied message', async () => /^已复制/.test(await panel.locator('#agents-copied').textContent()));
  await panel.locator('#agents').screenshot({ path: 'out/e2e-panel-agents.zh_CN.png' });
  await browser.sw.evaluate(() => self.sightline.setSettings({ ui: { language: 'auto' } }));
  await panel.locator('#agents-enabled').uncheck();
  await panel.close();
});
