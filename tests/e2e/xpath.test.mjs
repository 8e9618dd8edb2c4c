// Every element's XPath resolves in the page to exactly the node it describes, on both page
// readers, including past siblings the walkers skip (whitespace, hidden, scripts, comments).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchWithExtension } from '../support/browser.mjs';
import { startStaticServer } from '../support/static-server.mjs';

let browser, site;
before(async () => {
  site = await startStaticServer();
  browser = await launchWithExtension();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

/** Resolves each XPath in the page: count, node kind, tag, text and box. */
function resolveAll(elements) {
  const collapse = (s) => s.replace(/\s+/g, ' ').trim();
  return elements.map((e) => {
    const found = document.evaluate(e.xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const node = found.snapshotLength === 1 ? found.snapshotItem(0) : null;
    if (!node) return { index: e.index, xpath: e.xpath, problem: `${found.snapshotLength} matches` };
    let rect;
    if (node.nodeType === Node.TEXT_NODE) {
      const range = document.createRange();
      range.selectNodeContents(node);
      rect = range.getBoundingClientRect();
      if (e.kind !== 'TEXT') return { index: e.index, xpath: e.xpath, problem: 'text node for a non-text element' };
      if (collapse(node.data) !== e.content) return { index: e.index, xpath: e.xpath, problem: `text "${collapse(node.data)}" vs "${e.content}"` };
    } else {
      rect = node.getBoundingClientRect();
      if (node.localName !== e.tag) return { index: e.index, xpath: e.xpath, problem: `tag ${node.localName} vs ${e.tag}` };
    }
    const off = Math.max(Math.abs(rect.x - e.rect.x), Math.abs(rect.y - e.rect.y), Math.abs(rect.width - e.rect.width), Math.abs(rect.height - e.rect.height));
    if (off > 1) return { index: e.index, xpath: e.xpath, problem: `box off by ${off.toFixed(1)}px` };
    return null;
  }).filter(Boolean);
}

for (const pathname of ['/xpath.html', '/todo.html', '/index.html']) {
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
      const problems = await page.evaluate(resolveAll, x.elements);
      assert.deepEqual(problems, [], `${x.source} path`);
    }
    assert.deepEqual(cdp.elements.map((e) => e.xpath), live.elements.map((e) => e.xpath), 'both readers give the same XPaths');
    await page.close();
  });
}
