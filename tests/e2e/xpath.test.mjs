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

test('an id shared with an element the readers skip (script, style, template, in <head>) anchors no path, on both readers', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/xpath.html'));
  await page.evaluate(() => {
    document.head.append(
      Object.assign(document.createElement('meta'), { id: 'twin-meta', name: 'twin' }),
      Object.assign(document.createElement('style'), { id: 'twin-style', textContent: '/* a rule */' }),
    );
    const twins = document.createElement('section');
    // A script's text and a style's share their path with the div's text when the id anchors it:
    // `//*[@id="twin-script"]/text()[1]` names both.
    twins.innerHTML = '<script type="text/plain" id="twin-script">not run</script><div id="twin-script">Text beside a script</div>' +
      '<div id="twin-style">Text beside a style</div>' +
      '<template id="twin-template"><p>inert</p></template><div id="twin-template"><button>Beside a template</button></div>' +
      '<div id="twin-meta"><button>Beside a meta</button></div>' +
      '<div id="only-here"><button>Beside nothing</button></div>';
    document.body.append(twins);
  });
  const tabId = await browser.tabIdOf(page);
  const [live, cdp] = await browser.sw.evaluate(
    async (id) => [await self.sightline.extract(id), await self.sightline.extractViaCdp(id)],
    tabId,
  );
  assert.equal(cdp.source, 'cdp');
  const byContent = (x, content) => x.elements.find((e) => e.content === content);
  for (const content of ['Text beside a script', 'Text beside a style', 'Beside a template', 'Beside a meta']) {
    assert.doesNotMatch(byContent(cdp, content).xpath, /twin/, `${content}: no anchor on a shared id`);
  }
  assert.match(byContent(cdp, 'Beside nothing').xpath, /^\/\/\*\[@id="only-here"\]/, 'an id nothing else has anchors');
  for (const x of [live, cdp]) {
    assert.deepEqual(await pathProblems(browser, tabId, x.elements), [], `${x.source} path`);
  }
  assert.deepEqual(cdp.elements.map((e) => [e.xpath, e.xpathText]), live.elements.map((e) => [e.xpath, e.xpathText]), 'both readers give the same XPaths');
  await page.close();
});
