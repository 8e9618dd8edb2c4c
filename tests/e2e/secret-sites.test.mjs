// A secret is bound to sites. Before, one with no sites (the field was optional, and earlier
// versions saved such secrets) was typed on whatever site a run reached. Now Settings does not
// save a new or changed secret without its sites, and starts them as the site of the tab the
// person is on (the panel's tab when Settings is framed in the panel); a secret an earlier
// version saved without sites is kept, flagged, and refused when a run tries to type it.
// 127.0.0.1 and localhost are two sites on the same fixture server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { userMessage } from '../support/browser.mjs';
import { modelSuite } from '../support/suite.mjs';

const PASSWORD = 'Bound-To-Its-Site-62';
const LEGACY = 'Saved-Long-Ago-Without-Sites-19';

let browser, mock, site;
modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ provider: 'custom', baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-sites-test', family: 'generic', stream: false }),
});

const storedSecrets = () => browser.sw.evaluate(() => self.sightline.getSettings().then((s) => s.secrets));
const setSecrets = (secrets) => browser.sw.evaluate((s) => self.sightline.setSettings({ secrets: s }), secrets);

/** Settings in a tab of its own, once loaded. */
async function openSettings() {
  const form = await browser.context.newPage();
  await form.goto(`chrome-extension://${browser.extensionId}/options/options.html`);
  return ready(form);
}

/** The form once loaded (`form`: a page or a frame locator's owner frame). */
async function ready(form) {
  await form.locator('#provider option[value="custom"]').waitFor({ state: 'attached' });
  await form.locator('#settings:not([inert])').waitFor();
  return form;
}

/** Clicks Save and resolves to what the status line then says. */
async function save(form) {
  await form.locator('#status').evaluate((el) => { el.textContent = ''; });
  await form.locator('button[type=submit]').click();
  await form.locator('#status:not(:empty)').waitFor();
  return form.locator('#status').textContent();
}

/** A new secret row: name and value typed as a person types them. */
async function addSecret(form, name, value) {
  await form.locator('#addSecret').click();
  const row = form.locator('.row.secret').last();
  await row.locator('.secret-name').fill(name);
  await row.locator('.secret-value').fill(value);
  return row;
}

test('a new secret in Settings starts with the site of the tab the person is on; without sites it is not saved', async () => {
  await setSecrets([]);
  const page = await browser.context.newPage();
  await page.goto(site.url('/login.html?settings-standalone'));
  await page.bringToFront();
  const form = await openSettings();
  const row = await addSecret(form, 'pw', PASSWORD);
  const port = new URL(site.url('/')).port;
  await form.waitForFunction(() => document.querySelector('.row.secret:last-child .secret-sites').value !== '');
  assert.equal(await row.locator('.secret-sites').inputValue(), `127.0.0.1:${port}`, 'the site of the tab open when it was entered');
  assert.equal(await row.locator('.secret-sites').getAttribute('placeholder'), 'sites (required), e.g. example.com');

  // The person clears the sites: refused on save, saying what to do; nothing stored.
  await row.locator('.secret-sites').fill('');
  assert.equal(await save(form), 'Not saved: give the secret “pw” the sites it may be typed on (e.g. example.com); a secret is typed on its own sites only.');
  assert.deepEqual(await storedSecrets(), []);
  // Sites the person chose are theirs: typing the value again does not replace them.
  await row.locator('.secret-sites').fill('example.com');
  await row.locator('.secret-value').fill(`${PASSWORD}!`);
  assert.equal(await row.locator('.secret-sites').inputValue(), 'example.com');
  await row.locator('.secret-sites').fill(`127.0.0.1:${port}, example.com`);
  await row.locator('.secret-value').fill(PASSWORD);
  assert.equal(await save(form), 'Saved.');
  assert.deepEqual(await storedSecrets(), [{ name: 'pw', value: PASSWORD, sites: [`127.0.0.1:${port}`, 'example.com'], selector: '' }]);
  await setSecrets([]);
  await Promise.all([form.close(), page.close()]);
});

test('Settings framed in the panel starts a new secret\'s sites with the panel\'s tab, not the last one used', async () => {
  await setSecrets([]);
  const port = new URL(site.url('/')).port;
  const target = await browser.context.newPage();
  await target.goto(site.url('/login.html?settings-embedded').replace('127.0.0.1', 'localhost'));
  const tabId = await browser.tabIdOf(target);
  const later = await browser.context.newPage(); // used after it: the most recent web tab
  await later.goto(site.url('/index.html?settings-embedded-later'));
  const panel = await browser.openPanel(tabId);
  await panel.click('#open-settings');
  const form = panel.frameLocator('#settings-frame');
  await ready(form);
  const row = await addSecret(form, 'pw', PASSWORD);
  await panel.waitForFunction(() => document.getElementById('settings-frame').contentDocument.querySelector('.row.secret:last-child .secret-sites').value !== '');
  assert.equal(await row.locator('.secret-sites').inputValue(), `localhost:${port}`);
  assert.equal(await save(form), 'Saved.');
  assert.deepEqual((await storedSecrets()).map((s) => s.sites), [[`localhost:${port}`]]);
  await setSecrets([]);
  await Promise.all([panel.close(), target.close(), later.close()]);
});

/** The model's reply: type the legacy secret into the password field the page lists. */
function typeLegacy(body) {
  const line = userMessage(body).text.split('\n').find((l) => /^\s*\[\d+\]/.test(l) && /type="password"/.test(l));
  return JSON.stringify({ thought: 'the page asks for it', actions: [{ type: 'Input', target: Number(line.match(/\[(\d+)\]/)[1]), value: '<secret>legacy</secret>' }], done: true });
}

test('a secret an earlier version saved without sites is kept and flagged in Settings, and refused when a run tries to type it', async () => {
  await setSecrets([{ name: 'legacy', value: LEGACY, sites: [] }]);
  const page = await browser.context.newPage();
  await page.goto(site.url('/login.html?legacy-secret'));
  const tabId = await browser.tabIdOf(page);

  // The model is scripted to type it where the page asks: before, it was typed on any site.
  mock.script(typeLegacy);
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'sign in'), tabId);
  assert.equal(run.status, 'failed');
  assert.equal(run.error.code, 'secret_no_sites');
  assert.equal(run.error.message, 'the secret “legacy” was not typed: it is bound to no site; set the sites it may be typed on under Secrets in Settings (for a script, SIGHTLINE_SECRET_<NAME>_SITES)');
  assert.equal(await page.locator('#password').inputValue(), '', 'nothing typed');
  assert.doesNotMatch(userMessage(mock.requests[0].body).text, /<secret>legacy<\/secret>/, 'not offered to the model');
  assert.doesNotMatch(JSON.stringify(run), new RegExp(LEGACY));

  // Settings: kept and flagged; saving other settings keeps it as it is.
  const form = await openSettings();
  const row = form.locator('.row.secret.unsited');
  assert.equal(await row.locator('.secret-name').inputValue(), 'legacy');
  assert.equal(await row.locator('.secret-warning').textContent(), '“legacy” has no sites, so it is typed nowhere: give it the sites it is for (e.g. example.com), or remove it.');
  assert.equal(await save(form), 'Saved.');
  assert.deepEqual(await storedSecrets(), [{ name: 'legacy', value: LEGACY, sites: [], selector: '' }]);
  // Given its sites, it is typed there.
  await row.locator('.secret-sites').fill('127.0.0.1');
  assert.equal(await save(form), 'Saved.');
  assert.equal(await form.locator('.row.secret.unsited').count(), 0, 'no longer flagged');
  mock.reset();
  mock.script(typeLegacy);
  const typed = await browser.sw.evaluate((id) => self.sightline.act(id, 'sign in'), tabId);
  assert.equal(typed.status, 'succeeded', JSON.stringify(typed.error));
  assert.equal(await page.locator('#password').inputValue(), LEGACY);
  assert.match(userMessage(mock.requests[0].body).text, /<secret>legacy<\/secret>/, 'offered on its site');
  await setSecrets([]);
  await Promise.all([form.close(), page.close()]);
});
