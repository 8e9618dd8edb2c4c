// The API key goes only to the address it was entered for, and neither it nor a secret's value
// is anywhere a content script can read, even where Chrome leaves chrome.storage open to them.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { userMessage } from '../support/browser.mjs';
import { startMockModel } from '../support/mock-model.mjs';
import { modelSuite } from '../support/suite.mjs';

const KEY_A = 'sk-for-endpoint-A-51e0c9';
const KEY_B = 'sk-for-endpoint-B-77d2aa';
const LEGACY_KEY = 'sk-legacy-in-storage-0b3f';
const PASSWORD = 'Vault-Held-Password-93';

let browser, mock, site;
modelSuite((env) => ({ browser, mock, site } = env));
// A second endpoint on another port: another origin.
const other = startMockModel();
after(async () => (await other).close());

const origin = (baseUrl) => new URL(baseUrl).origin;
const plan = (actions) => JSON.stringify({ thought: 'as asked', actions, done: true });
const numberOf = (body, pattern) => Number(userMessage(body).text.split('\n').find((l) => /^\s*\[\d+\]/.test(l) && pattern.test(l))?.match(/\[(\d+)\]/)?.[1]);

async function openSettings() {
  const form = await browser.context.newPage();
  await form.goto(`chrome-extension://${browser.extensionId}/options/options.html`);
  await form.locator('#provider option[value="custom"]').waitFor({ state: 'attached' });
  await form.waitForFunction(() => document.getElementById('apiKey').placeholder !== '');
  return form;
}

/** Saves the form with this base URL (and key, when given); resolves to the status line. */
async function saveForm(form, baseUrl, key = '') {
  await form.fill('#baseUrl', baseUrl);
  await form.fill('#apiKey', key);
  await form.evaluate(() => { document.getElementById('status').textContent = ''; });
  await form.click('button[type=submit]');
  await form.waitForFunction(() => document.getElementById('status').textContent !== '');
  return form.textContent('#status');
}

const checkModel = (model) => browser.sw.evaluate((m) => self.sightline.checkModel(m).then((r) => r.reply, (e) => `refused: ${e.message}`), model);

test('the key is bound to the origin it was entered for: a new endpoint needs its own key', async () => {
  const B = await other;
  await browser.sw.evaluate((m) => self.sightline.setSettings({ model: m, run: { useCache: false } }),
    { provider: 'custom', baseUrl: mock.baseUrl, model: 'mock-model', apiKey: KEY_A, family: 'generic' });
  mock.setFallback('OK');
  B.reset();
  B.setFallback('OK');
  assert.equal(await checkModel(), 'OK');
  assert.equal(mock.requests.at(-1).headers.authorization, `Bearer ${KEY_A}`);

  // Settings: the base URL changed to B, no key typed.
  const form = await openSettings();
  assert.match(await form.getAttribute('#apiKey', 'placeholder'), /^saved: sk-••••e0c9 /);
  assert.match(await form.textContent('label[for=apiKey]'), /sent only to the address it was entered for/);
  await form.fill('#baseUrl', B.baseUrl);
  await form.waitForFunction(() => /only/.test(document.getElementById('apiKey').placeholder));
  assert.equal(await form.getAttribute('#apiKey', 'placeholder'), `the saved key is for ${origin(mock.baseUrl)} only — enter the key for this address`);
  const status = await saveForm(form, B.baseUrl);
  assert.equal(status, `Saved. The API key was entered for ${origin(mock.baseUrl)} and is not sent to the new address: enter the key for it.`);

  // Neither a run, nor Test connection, sends A's key to B: B hears nothing at all.
  const page = await browser.context.newPage();
  await page.goto(site.url('/todo.html?case=key-origin'));
  const tabId = await browser.tabIdOf(page);
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'add a todo'), tabId);
  assert.equal(run.status, 'failed');
  const refusal = `the saved API key was entered for ${origin(mock.baseUrl)} and is sent nowhere else: enter the key for ${origin(B.baseUrl)} in Settings`;
  assert.ok(run.error.message.includes(refusal), run.error.message);
  assert.equal(run.error.code, 'model_key_elsewhere');
  assert.match(await checkModel(), new RegExp(`^refused: ${refusal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  await form.click('#check');
  await form.waitForSelector('#checkResult.bad');
  assert.ok((await form.textContent('#checkResult')).includes(refusal), 'Test connection says so too');
  assert.equal(B.requests.length, 0, 'B received no request, so no key');
  assert.ok(!JSON.stringify(run).includes(KEY_A));

  // A caller's override of the base URL does not take the stored key along either.
  await browser.sw.evaluate((m) => self.sightline.setSettings({ model: m }), { baseUrl: mock.baseUrl, apiKey: KEY_A });
  const requestsBefore = mock.requests.length;
  assert.match(await checkModel({ baseUrl: B.baseUrl }), /^refused: the saved API key was entered for/);
  const overridden = await browser.sw.evaluate(([id, url]) => self.sightline.act(id, 'add a todo', { model: { baseUrl: url } }), [tabId, B.baseUrl]);
  assert.equal(overridden.status, 'failed');
  assert.match(overridden.error.message, /the saved API key was entered for/);
  assert.equal(B.requests.length, 0);
  assert.equal(mock.requests.length, requestsBefore, 'nor was A asked instead');
  // A key given with the override goes with it.
  assert.equal(await checkModel({ baseUrl: B.baseUrl, apiKey: KEY_B }), 'OK');
  assert.equal(B.requests.at(-1).headers.authorization, `Bearer ${KEY_B}`);

  // Entering B's key for B works; it replaces A's key, so going back to A needs A's key again.
  await form.reload();
  await form.locator('#provider option[value="custom"]').waitFor({ state: 'attached' });
  assert.equal(await saveForm(form, B.baseUrl, KEY_B), 'Saved.');
  B.reset();
  B.setFallback('OK');
  assert.equal(await checkModel(), 'OK');
  assert.equal(B.requests[0].headers.authorization, `Bearer ${KEY_B}`);
  const back = await saveForm(form, mock.baseUrl);
  assert.match(back, new RegExp(`entered for ${origin(B.baseUrl).replace(/[.]/g, '\\.')} and is not sent`));
  const asked = mock.requests.length;
  assert.match(await checkModel(), /^refused: the saved API key was entered for/);
  assert.equal(mock.requests.length, asked, 'B\'s key never reaches A');
  assert.equal(await saveForm(form, mock.baseUrl, KEY_A), 'Saved.');
  assert.equal(await checkModel(), 'OK');
  assert.equal(mock.requests.at(-1).headers.authorization, `Bearer ${KEY_A}`);
  await Promise.all([form.close(), page.close()]);
});

test('no content script can read the key or a secret value, even with chrome.storage opened to them', async () => {
  await browser.sw.evaluate(([m, pw]) => self.sightline.setSettings({
    model: m, run: { useCache: false, allowedSites: [] }, secrets: [{ name: 'site_password', value: pw, sites: ['127.0.0.1'] }],
  }), [{ provider: 'custom', baseUrl: mock.baseUrl, model: 'mock-model', apiKey: KEY_A, family: 'generic' }, PASSWORD]);
  const page = await browser.context.newPage();
  await page.goto(site.url('/login.html?case=vault'));
  const tabId = await browser.tabIdOf(page);
  assert.equal(await browser.sw.evaluate(() => self.sightline.storageClosed()), true, 'Chromium 156 closes the local area to content scripts');

  // Everything a content script's world can reach: both chrome.storage areas (opened to content
  // scripts here, as on a Chrome that cannot close them) and the IndexedDB it can open.
  const readable = () => browser.sw.evaluate((id) => chrome.scripting.executeScript({
    target: { tabId: id },
    func: async () => {
      const area = (a) => chrome.storage[a].get(null).then((s) => JSON.stringify(s), (e) => `refused: ${e.message}`);
      const dbs = await indexedDB.databases();
      return { local: await area('local'), session: await area('session'), databases: JSON.stringify(dbs) };
    },
  }).then(([r]) => r.result), tabId);
  await browser.sw.evaluate(() => Promise.all(['local', 'session'].map((a) => chrome.storage[a].setAccessLevel({ accessLevel: 'TRUSTED_AND_UNTRUSTED_CONTEXTS' }))));
  let seen;
  try {
    seen = await readable();
  } finally {
    await browser.sw.evaluate(() => Promise.all(['local', 'session'].map((a) => chrome.storage[a].setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' }))));
  }
  assert.match(seen.local, /"baseUrl":"http:\/\/127\.0\.0\.1/, 'the content script did read chrome.storage.local');
  for (const [where, text] of Object.entries(seen)) {
    assert.ok(!text.includes(KEY_A), `the key is readable in ${where}`);
    assert.ok(!text.includes(PASSWORD), `the password is readable in ${where}`);
  }
  assert.doesNotMatch(seen.databases, /sightline/, 'the extension\'s IndexedDB is not the page\'s');
  const closed = await readable();
  assert.match(closed.local, /^refused/, 'and closed again');

  // Runs still work: the key reaches the endpoint, the secret the page.
  mock.script((body) => plan([
    { type: 'Input', target: numberOf(body, /input#user/), value: 'ada' },
    { type: 'Input', target: numberOf(body, /type="password"/), value: '<secret>site_password</secret>' },
    { type: 'Tap', target: numberOf(body, /button.*Sign in/) },
  ]));
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'Sign in as ada with <secret>site_password</secret>'), tabId);
  assert.equal(run.status, 'succeeded', run.error);
  assert.equal(mock.requests[0].headers.authorization, `Bearer ${KEY_A}`);
  assert.equal(await page.inputValue('#password'), PASSWORD);
  await browser.sw.evaluate(() => self.sightline.setSettings({ secrets: [] }));
  await page.close();
});

test('settings saved by an earlier version move the key and the secrets out of chrome.storage.local', async () => {
  await browser.sw.evaluate(() => self.sightline.setSettings({ model: { apiKey: '' }, secrets: [] }));
  await browser.sw.evaluate(([url, key, pw]) => chrome.storage.local.get('settings').then(({ settings }) => chrome.storage.local.set({
    settings: { ...settings, model: { ...settings.model, baseUrl: url, apiKey: key }, secrets: [{ name: 'pw', value: pw, sites: [] }] },
  })), [mock.baseUrl, LEGACY_KEY, PASSWORD]);
  // A fresh extension context (the options page) reads the settings and moves them.
  const form = await openSettings();
  assert.match(await form.getAttribute('#apiKey', 'placeholder'), /^saved: sk-••••0b3f /);
  const local = await browser.sw.evaluate(() => chrome.storage.local.get(null).then((s) => JSON.stringify(s)));
  assert.ok(!local.includes(LEGACY_KEY) && !local.includes(PASSWORD), local);
  const settings = await browser.sw.evaluate(() => self.sightline.getSettings());
  assert.equal(settings.model.apiKey, LEGACY_KEY);
  assert.equal(settings.model.apiKeyFor, mock.baseUrl, 'bound to the base URL it was saved with');
  assert.deepEqual(settings.secrets, [{ name: 'pw', value: PASSWORD, sites: [] }]);
  mock.setFallback('OK');
  assert.equal(await checkModel(), 'OK');
  assert.equal(mock.requests.at(-1).headers.authorization, `Bearer ${LEGACY_KEY}`);
  await browser.sw.evaluate(() => self.sightline.setSettings({ secrets: [] }));
  await form.close();
});
