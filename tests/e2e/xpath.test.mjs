// Every element's XPaths (order-sensitive and text-based) resolve in the page to exactly the node it describes, on both page
// readers, including past siblings the walkers skip (whitespace, hidden, scripts, comments).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathProblems } from '../support/resolve.mjs';
import { pageSuite } from '../support/suite.mjs';

let browser, site;
pageSuite((env) => ({ browser, site } = env));

for (const pathname of ['/xpath.html', '/todo.html', '/index.html', '/frames.html', '/visibility.html']) {
  test(`XPaths round-trip on ${pathname}, both readers`, async () => {
    const page = await browser.context.newPage();
    await page.goto(site.url(pathname));
    if (pathname === '/todo.html') {
      await page.fill('.new-todo', 'milk');
      await page.press('.new-todo', 'Enter');
    }
    const tabId = await browser.tabIdOf(page);
    const [live, cdp] = await browser.sw.evaluate(
      async (id) => [await self.sightline.extract(id), await self.sightline.extractViaCdp(id)],
      tabId,
    );
    assert.ok(live.elements.length >= 3, 'the page has elements to check');
    for (const x of [live, cdp]) {
      assert.deepEqual(await pathProblems(browser, tabId, x.elements), [], `${x.source} path`);
    }
    assert.deepEqual(cdp.elements.map((e) => [e.xpath, e.xpathText]), live.elements.map((e) => [e.xpath, e.xpathText]), 'both readers give the same XPaths');
    await page.close();
  });
}
