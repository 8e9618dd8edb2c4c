// The optional planning model (issue 22): Settings' pairing fills a planner and a grounder,
// each with its own key bound to its own address; a run on the shop asks the planner for the
// plan and the grounder (UI-TARS 1.5, a second mock server) only to locate what the planner
// described; the record and the panel show each model's calls, tokens and cost; a planner
// that cannot be used fails the run naming it.
import { test, after, before, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { messageText, startMockModel } from '../support/mock-model.mjs';
import { userMessage } from '../support/browser.mjs';
import { modelSuite } from '../support/suite.mjs';
import { nativePoint } from '../support/family-points.mjs';

let browser, mock, site;
/** The grounder's own server; `mock` (the suite's) is the planner. */
let grounder;

modelSuite((env) => ({ browser, mock, site } = env));
before(async () => {
  grounder = await startMockModel();
});
after(() => grounder?.close());
beforeEach(() => grounder?.reset());

const PLANNER_KEY = 'sk-planner-5d1e77';
const GROUNDER_KEY = 'sk-grounder-0b42c9';
const PLANNER = 'gpt-4.1';
const GROUNDER = 'ByteDance-Seed/UI-TARS-1.5-7B';

async function openShop(path) {
  const page = await browser.context.newPage();
  await page.goto(site.url(`/shop/${path}`));
  await page.waitForFunction(() => window.shop);
  await page.evaluate(() => window.shop.reset());
  await page.reload();
  await page.waitForFunction(() => document.querySelector('.cart-count'));
  return { page, tabId: await browser.tabIdOf(page) };
}

const systemText = (body) => messageText(body.messages.find((m) => m.role === 'system'));

test('Settings: a pairing fills the planner and the grounder; each key is saved for its own address', async () => {
  await browser.sw.evaluate(() => self.sightline.setSettings({ model: { apiKey: '' }, planner: { enabled: false, apiKey: '' }, run: { useCache: false } }));
  const { page, tabId } = await openShop('index.html');
  const panel = await browser.openPanel(tabId);
  await panel.click('#open-settings');
  await panel.waitForSelector('#settings-view:not([hidden])');
  const form = panel.frameLocator('#settings-frame');
  await form.locator('#pairing option[value="gpt-uitars-local"]').waitFor({ state: 'attached' });
  assert.equal(await form.locator('#plannerFields').isHidden(), true, 'the planner fields show once it is on');
  await form.locator('#pairing').selectOption('gpt-uitars-local');
  assert.equal(await form.locator('#plannerOn').isChecked(), true);
  assert.equal(await form.locator('#plannerModel').inputValue(), PLANNER);
  assert.equal(await form.locator('#plannerBaseUrl').inputValue(), 'https://api.openai.com/v1');
  assert.equal(await form.locator('#model').inputValue(), GROUNDER);
  assert.equal(await form.locator('#family').inputValue(), 'ui-tars-1.5');
  assert.match(await form.locator('#pairingHelp').textContent(), /enter each one's API key/);
  // Both endpoints point at the mocks here; each gets its own key.
  await form.locator('#baseUrl').fill(grounder.baseUrl);
  await form.locator('#apiKey').fill(GROUNDER_KEY);
  await form.locator('#plannerBaseUrl').fill(mock.baseUrl);
  await form.locator('#plannerApiKey').fill(PLANNER_KEY);
  mock.script('OK');
  await form.locator('#checkPlanner').click();
  await form.locator('#checkPlannerResult.ok').waitFor();
  assert.equal(mock.requests[0].headers.authorization, `Bearer ${PLANNER_KEY}`, 'the planner test used the planner key');
  assert.equal(mock.requests[0].body.model, PLANNER);
  assert.equal(grounder.requests.length, 0);
  await form.locator('button[type=submit]').click();
  await form.locator('#status', { hasText: 'Saved.' }).waitFor();
  const stored = await browser.sw.evaluate(() => self.sightline.getSettings());
  assert.equal(stored.planner.enabled, true);
  assert.equal(stored.planner.apiKey, PLANNER_KEY);
  assert.equal(stored.planner.apiKeyFor, mock.baseUrl, "the planner's key is bound to the planner's address");
  assert.equal(stored.model.apiKey, GROUNDER_KEY);
  assert.equal(stored.model.apiKeyFor, grounder.baseUrl);
  assert.equal(await form.locator('#plannerApiKey').getAttribute('placeholder'), `saved: sk-••••${PLANNER_KEY.slice(-4)} — type to replace`);
  // Neither key sits where content scripts could read it.
  const local = await browser.sw.evaluate(() => chrome.storage.local.get('settings'));
  assert.doesNotMatch(JSON.stringify(local), /sk-planner|sk-grounder/);
  await panel.close();
  await page.close();
});

test('shop: the planner plans, the grounder locates what it described, and the panel shows each model’s cost', async () => {
  await browser.sw.evaluate(([planner, grounderUrl, prices]) => self.sightline.setSettings({
    model: { provider: 'vllm', baseUrl: grounderUrl, model: 'ByteDance-Seed/UI-TARS-1.5-7B', family: 'ui-tars-1.5', apiKey: 'sk-grounder-0b42c9', stream: false },
    planner: { enabled: true, provider: 'openai', baseUrl: planner, model: 'gpt-4.1', apiKey: 'sk-planner-5d1e77' },
    run: { useCache: false },
    prices,
  }), [mock.baseUrl, grounder.baseUrl, [{ model: PLANNER, input: 2, output: 8 }, { model: GROUNDER, input: 0.5, output: 0.5 }]]);
  const { page, tabId } = await openShop('index.html');
  const { elements } = await browser.sw.evaluate((id) => self.sightline.extract(id), tabId);
  const box = elements.find((e) => e.tag === 'input' && e.attributes.some(([k, v]) => k === 'type' && v === 'search')).center;
  mock.script(JSON.stringify({
    thought: 'Search for lamps.',
    actions: [{ type: 'Input', target: 'the search box at the top of the page', value: 'lamp' }, { type: 'KeyPress', key: 'Enter' }],
    done: true,
    answer: 'Arc Floor Lamp and Pivot Desk Lamp',
    notes: 'searching for lamps',
  }));
  grounder.script(`Thought: The search box is at the top.\nAction: click(start_box='${nativePoint['ui-tars-1.5'](box)}')`);
  const run = await browser.sw.evaluate(([id, text]) => self.sightline.act(id, text), [tabId, 'search the shop for lamps']);
  assert.equal(run.status, 'succeeded', JSON.stringify([run.error, run.steps?.map((s) => [s.action, s.error])]));
  assert.match(page.url(), /[?&]q=lamp\b/);
  assert.equal(await page.textContent('#listing-title'), 'Results for “lamp” (2)');
  assert.equal(run.result, 'Arc Floor Lamp and Pivot Desk Lamp');

  // The planner got the planning prompt (with the element list), and judged the goal afterwards.
  assert.equal(mock.requests.length, 1);
  const planned = mock.requests[0];
  assert.equal(planned.body.model, PLANNER);
  assert.equal(planned.headers.authorization, `Bearer ${PLANNER_KEY}`);
  assert.match(systemText(planned.body), /A second model carries your actions out/);
  assert.match(userMessage(planned.body).text, /<instruction>\nsearch the shop for lamps\n<\/instruction>/);
  assert.match(userMessage(planned.body).text, /type="search"/);
  assert.equal(mock.checks.length, 1, 'the planner checks the goal');
  // The grounder got one locate request for the description, in its own protocol.
  assert.equal(grounder.requests.length, 1);
  const located = grounder.requests[0];
  assert.equal(located.body.model, GROUNDER);
  assert.equal(located.headers.authorization, `Bearer ${GROUNDER_KEY}`);
  assert.match(userMessage(located.body).text, /the search box at the top of the page/);
  assert.doesNotMatch(systemText(located.body), /A second model/);
  assert.equal(grounder.checks.length, 0);

  // Steps: plan (planner) → locate (actor) → typing at the element found → Enter → check (planner).
  assert.deepEqual(run.steps.map((s) => [s.kind, s.role ?? null]), [
    ['plan', 'planner'], ['plan', 'actor'], ['action', null], ['action', null], ['plan', 'planner'],
  ]);
  assert.equal(run.steps[1].action, 'Locate “the search box at the top of the page”');
  assert.equal(run.steps[2].target?.tag, 'input');

  // Usage and cost per model, each at its own price; the totals are their sums.
  assert.deepEqual(run.models.map((m) => [m.role, m.model, m.calls]), [['planner', PLANNER, 2], ['actor', GROUNDER, 1]]);
  for (const m of run.models) {
    const expected = (m.usage.promptTokens * (m.role === 'planner' ? 2 : 0.5) + m.usage.completionTokens * (m.role === 'planner' ? 8 : 0.5)) / 1e6;
    assert.ok(Math.abs(m.cost - expected) < 1e-12, `${m.model}: ${m.cost} ≠ ${expected}`);
  }
  assert.ok(Math.abs(run.cost - (run.models[0].cost + run.models[1].cost)) < 1e-12);
  assert.equal(run.usage.promptTokens, run.models[0].usage.promptTokens + run.models[1].usage.promptTokens);
  assert.equal(run.modelCalls, 3);

  // The panel shows the tab's last run: the total, then each model's share.
  const panel = await browser.openPanel(tabId);
  await panel.waitForFunction(() => document.querySelectorAll('#run-models li').length === 2, null, { timeout: 15_000 });
  const shares = await panel.locator('#run-models li').allTextContents();
  assert.match(shares[0], /^planner gpt-4\.1: 2 call\(s\) · \d+ tok · \$\d+\.\d+$/);
  assert.match(shares[1], /^actor ByteDance-Seed\/UI-TARS-1\.5-7B: 1 call\(s\) · \d+ tok · \$\d+\.\d+$/);
  assert.match(await panel.textContent('#run-totals'), /^Model calls: 3 · tokens: \d+ · \$\d+\.\d+/);
  assert.deepEqual(await panel.locator('#steps .badge.role').allTextContents(), ['planner', 'actor', 'planner']);
  await panel.screenshot({ path: 'out/panel-planner-model.png', fullPage: true });
  // The report carries the same shares.
  const report = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'report'), run.id);
  assert.match(report, /Planner gpt-4\.1: 2 model call\(s\) · \d+ tokens · \$\d+\.\d+/);
  assert.match(report, /Actor ByteDance-Seed\/UI-TARS-1\.5-7B: 1 model call\(s\)/);
  await panel.close();
  await page.close();
});

test('a planner that cannot be used fails the run naming it; its key never goes elsewhere', async () => {
  // The planner's address changed, its key stays bound to the old one: refused before any request.
  await browser.sw.evaluate(() => self.sightline.setSettings({ planner: { enabled: true, baseUrl: 'http://127.0.0.1:9/v1' } }));
  const { page, tabId } = await openShop('index.html');
  let run = await browser.sw.evaluate(([id, text]) => self.sightline.act(id, text), [tabId, 'search the shop for lamps']);
  assert.equal(run.status, 'failed');
  assert.equal(run.error.code, 'planner_model_failed');
  assert.match(run.error.message, /^the planning model gpt-4\.1 failed: the saved API key was entered for http:\/\/127\.0\.0\.1:\d+/);
  assert.doesNotMatch(run.error.message, /sk-planner/);
  // A dead endpoint with no key to guard: the network error, naming the planner.
  await browser.sw.evaluate(() => self.sightline.setSettings({ planner: { provider: 'custom', apiKey: '', maxRetries: 0 } }));
  run = await browser.sw.evaluate(([id, text]) => self.sightline.act(id, text), [tabId, 'search the shop for lamps']);
  assert.equal(run.error?.code, 'planner_model_failed', JSON.stringify(run.error));
  assert.match(run.error.message, /^the planning model gpt-4\.1 failed: could not reach the model endpoint/);
  assert.equal(mock.requests.length + grounder.requests.length, 0, 'no model was asked');
  // Off again: the acting model plans alone, as before.
  await browser.sw.evaluate(() => self.sightline.setSettings({ planner: { enabled: false } }));
  grounder.script("Thought: Nothing to do.\nAction: finished(content='nothing')");
  run = await browser.sw.evaluate(([id, text]) => self.sightline.act(id, text), [tabId, 'say nothing']);
  assert.equal(grounder.requests.length, 1);
  assert.doesNotMatch(systemText(grounder.requests[0].body), /A second model/);
  assert.equal(run.models, undefined, 'one model: no shares');
  await page.close();
});

test('a model that refuses the key: the panel advises on the cause, for the planner its own key', async () => {
  await browser.sw.evaluate(([planner, grounderUrl]) => self.sightline.setSettings({
    model: { provider: 'vllm', baseUrl: grounderUrl, model: 'ByteDance-Seed/UI-TARS-1.5-7B', family: 'ui-tars-1.5', apiKey: 'sk-grounder-0b42c9', stream: false, maxRetries: 0 },
    planner: { enabled: true, provider: 'openai', baseUrl: planner, model: 'gpt-4.1', apiKey: 'sk-planner-5d1e77', maxRetries: 0 },
    run: { useCache: false },
  }), [mock.baseUrl, grounder.baseUrl]);
  const { page, tabId } = await openShop('index.html');
  const panel = await browser.openPanel(tabId);
  /** The panel's error line once it matches `re` (the panel shows the tab's last run). */
  const shownError = async (re) => {
    await panel.waitForFunction((source) => new RegExp(source).test(document.getElementById('run-error')?.textContent ?? ''), re.source, { timeout: 15_000 });
    return panel.textContent('#run-error');
  };

  // The planner's endpoint refuses its key: the run names the planner, its cause is model_auth,
  // and the panel points at the planning model's key.
  mock.script(() => ({ status: 401, error: 'Incorrect API key provided' }));
  let run = await browser.sw.evaluate(([id, text]) => self.sightline.act(id, text), [tabId, 'search the shop for lamps']);
  assert.deepEqual([run.status, run.error?.code, run.error?.cause], ['failed', 'planner_model_failed', 'model_auth'], JSON.stringify(run.error));
  assert.match(run.error.message, /^the planning model gpt-4\.1 failed: .*HTTP 401/);
  let text = await shownError(/gpt-4\.1 failed/);
  assert.match(text, /the planning model gpt-4\.1 failed: .*HTTP 401.* — check the planning model's API key in Settings \(Planning model\)\.$/);
  assert.equal(grounder.requests.length, 0);

  // The planner plans, the grounder's endpoint refuses its key: the model's own key advice.
  mock.reset();
  mock.script(JSON.stringify({ thought: 'Search.', actions: [{ type: 'Tap', target: 'the search box at the top of the page' }], done: false }));
  grounder.script(() => ({ status: 401, error: 'Incorrect API key provided' }));
  run = await browser.sw.evaluate(([id, text]) => self.sightline.act(id, text), [tabId, 'search the shop for lamps']);
  assert.deepEqual([run.error?.code, run.error?.cause], ['actor_model_failed', 'model_auth'], JSON.stringify(run.error));
  text = await shownError(/the acting model ByteDance-Seed\/UI-TARS-1\.5-7B, which finds/);
  assert.match(text, / — check the API key in Settings\.$/);
  assert.doesNotMatch(text, /planning model's API key|edit the instruction/);

  // In Chinese, the same advice in Chinese.
  await browser.sw.evaluate(() => self.sightline.setSettings({ ui: { language: 'zh_CN' } }));
  mock.reset();
  mock.script(() => ({ status: 401, error: 'Incorrect API key provided' }));
  run = await browser.sw.evaluate(([id, text]) => self.sightline.act(id, text), [tabId, 'search the shop for lamps']);
  assert.equal(run.error?.cause, 'model_auth');
  await panel.close();
  const zh = await browser.openPanel(tabId);
  await zh.waitForFunction(() => /规划模型的 API 密钥/.test(document.getElementById('run-error')?.textContent ?? ''), null, { timeout: 15_000 });
  await zh.close();
  await browser.sw.evaluate(() => self.sightline.setSettings({ ui: { language: 'auto' }, planner: { enabled: false } }));
  await page.close();
});
