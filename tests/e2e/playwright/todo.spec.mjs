// A spec as a user writes one with @sightline/playwright: Playwright drives the page, Sightline's
// calls find elements and read it (the model is the e2e's mock, given through the environment).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '../../../scripts/lib/playwright/index.mjs';
import { applyStorageState } from '../../../scripts/lib/playwright/fixtures.mjs';
import { startStaticServer } from '../../../scripts/lib/static-server.mjs';

let site;
test.beforeAll(async () => {
  site = await startStaticServer({ root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures') });
});
test.afterAll(async () => site?.close());

test('adds todos, filters and reads them back', async ({ page, aiInput, aiKeyboardPress, aiTap, aiQuery, aiAssert }) => {
  await page.goto(site.url('/todo.html'));
  await aiInput('the "What needs to be done?" box', { value: 'buy milk' });
  await aiKeyboardPress('Enter');
  await aiInput('walk the dog', 'the "What needs to be done?" box'); // Midscene's older order
  await aiKeyboardPress('Enter');
  await page.locator('.todo-list li .toggle').first().check();
  await aiTap('the "Active" filter link');
  await expect(page).toHaveURL(/#\/active$/);
  expect(await aiQuery('the titles of the todos shown, as a list of strings')).toEqual(['walk the dog']);
  await aiAssert('one todo is shown');
});

test('ai plans an instruction; runYaml runs a flow on the page, its javascript step too, and answers its named steps', async ({ page, ai, runYaml }) => {
  await page.goto(site.url('/todo.html'));
  await ai('add a todo "call grandma"');
  const { result } = await runYaml(`
agent:
  testId: add-and-read
tasks:
  - name: add and read
    flow:
      - aiInput: the "What needs to be done?" box
        value: buy milk
        xpath: /html[1]/body[1]/main[1]/header[1]/div[1]/input[2]
      - aiKeyboardPress: Enter
      - aiQuery: the titles of the todos shown, as a list of strings
        name: titles
      - javascript: document.querySelectorAll('.todo-list li').length
        name: count
`);
  expect(result).toEqual({ titles: ['call grandma', 'buy milk'], count: 2 });
  await expect(page.locator('.todo-list label')).toHaveText(['call grandma', 'buy milk']);
});

test('a failed assertion fails the test with its code and reason', async ({ page, aiAssert }) => {
  test.fail();
  await page.goto(site.url('/todo.html'));
  await aiAssert('a todo "fly a kite" is shown', 'no kite on the list');
});

// The worker's browser is shared by its tests: what one test's site stored is gone in the next.
test('a site stores a value', async ({ page }) => {
  await page.goto(site.url('/todo.html'));
  await page.evaluate(() => localStorage.setItem('left-by', 'the test before'));
});

test('the next test on that site finds nothing stored', async ({ page }) => {
  await page.goto(site.url('/todo.html'));
  expect(await page.evaluate(() => localStorage.getItem('left-by'))).toBe(null);
});

// A project's storageState on a Playwright without context.setStorageState (the peer range goes
// back to 1.50): cookies, then each origin's local storage, put in by hand.
test('storage state goes in by hand where Playwright has no setStorageState', async ({ context, page }) => {
  const older = Object.create(context, { setStorageState: { value: undefined } });
  await applyStorageState(older, {
    cookies: [{ name: 'by-hand', value: '1', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' }],
    origins: [{ origin: site.origin, localStorage: [{ name: 'by-hand', value: 'yes' }] }],
  });
  await page.goto(site.url('/todo.html'));
  expect(await page.evaluate(() => [localStorage.getItem('by-hand'), document.cookie])).toEqual(['yes', 'by-hand=1']);
});
