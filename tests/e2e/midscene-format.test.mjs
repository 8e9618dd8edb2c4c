// The `midscene` description format is byte-identical to Midscene's own descriptionOfTree
// (@midscene/shared 1.13.1) for the same tree: on generated trees, and on a fixture page's tree.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { descriptionOfTree } from '@midscene/shared/extractor';
import { core } from '../support/core-node.mjs';
import { launchWithExtension } from '../support/browser.mjs';
import { startStaticServer } from '../support/static-server.mjs';

/** Our tree shape (attributes as [name, value] pairs) → Midscene's (attributes as an object). */
function toMidscene(tree) {
  return {
    node: tree.node && { ...tree.node, attributes: Object.fromEntries(tree.node.attributes) },
    children: tree.children.map(toMidscene),
  };
}

const same = (ours, theirs) => Buffer.from(ours, 'utf8').equals(Buffer.from(theirs, 'utf8'));

function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'Buy', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '你好', '😀', '<b>', '"', 'é', 'x'.repeat(140), '\u2028', '…', '😀'.repeat(40), 'x' + '😀'.repeat(90)];
const KEYS = ['class', 'id', 'placeholder', 'aria-label', 'href', 'style', 'title', 'data-x', '0', '12', '01', 'b', 'a'];
const TYPES = ['TEXT Node', 'BUTTON Node', 'IMG Node', 'FORM_ITEM Node', 'CONTAINER Node', 'Anchor Node'];
const NUMBERS = [0, -0, 3, 4, 4.5, 5, 10.25, 100, 1280, -12.5, 0.1 + 0.2, 1e21, 1e-7, 123456.789];

function generate(random) {
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  const text = () => Array.from({ length: Math.floor(random() * 5) }, () => pick(PIECES)).join('');
  const node = (depth) => {
    const attributes = [];
    for (let i = Math.floor(random() * 5); i > 0; i--) attributes.push([pick(KEYS), random() < 0.2 ? pick(NUMBERS) : text()]);
    if (random() < 0.7) attributes.push(['htmlTagName', pick(['<div>', '<a>', '', '<input>', 'span'])]);
    attributes.push(['nodeType', pick(TYPES)]);
    return {
      node: random() < 0.25 ? null : {
        id: pick(['abcde', 'x', 'q1']),
        attributes,
        content: random() < 0.3 ? '' : text(),
        rect: { left: pick(NUMBERS), top: pick(NUMBERS), width: pick(NUMBERS), height: pick(NUMBERS) },
        isVisible: random() < 0.8,
      },
      children: depth > 4 ? [] : Array.from({ length: Math.floor(random() * 4) }, () => node(depth + 1)),
    };
  };
  return node(0);
}

test('generated trees: byte-identical output for every option combination', () => {
  const random = rng(20261122);
  const trees = 600;
  const seen = { nonEmpty: 0, cut: 0, wrapper: 0, exponent: 0, fffd: 0 };
  for (let i = 0; i < trees; i++) {
    const tree = generate(random);
    const truncate = random() < 0.5 ? undefined : 1 + Math.floor(random() * 200);
    const filter = random() < 0.3;
    const visibleOnly = random() < 0.7;
    const theirs = descriptionOfTree(toMidscene(tree), truncate, filter, visibleOnly);
    const ours = core.midsceneDescriptionOfTree(tree, truncate, filter, visibleOnly);
    if (!same(ours, theirs)) {
      assert.fail(`tree ${i} (truncate ${truncate}, filter ${filter}, visibleOnly ${visibleOnly}) differs:\n` +
        `tree: ${JSON.stringify(tree)}\nmidscene: ${JSON.stringify(theirs)}\nours:     ${JSON.stringify(ours)}`);
    }
    seen.nonEmpty += ours !== '';
    seen.cut += ours.includes('...');
    seen.wrapper += ours.includes('<>');
    seen.exponent += /="1e[+-]/.test(ours);
    seen.fffd += ours.includes('\ufffd');
  }
  // The corpus must reach the quirks it exists to check.
  for (const [what, count] of Object.entries(seen)) assert.ok(count >= 5, `only ${count} trees exercise ${what}`);
});

let browser, site;
after(async () => {
  await browser?.close();
  await site?.close();
});

test('fixture pages: the extension’s midscene description equals Midscene’s on the same tree', async () => {
  site = await startStaticServer();
  browser = await launchWithExtension();
  for (const pathname of ['/todo.html', '/index.html']) {
    const page = await browser.context.newPage();
    await page.goto(site.url(pathname));
    if (pathname === '/todo.html') {
      for (const t of ['milk', 'eggs']) {
        await page.fill('.new-todo', t);
        await page.press('.new-todo', 'Enter');
      }
    }
    const tabId = await browser.tabIdOf(page);
    const x = await browser.sw.evaluate((id) => self.sightline.extract(id, { format: 'midscene' }), tabId);
    assert.ok(x.tree, 'the midscene format returns its tree');
    assert.ok(x.description.length > 0);
    assert.ok(same(x.description, descriptionOfTree(toMidscene(x.tree))), `${pathname}:\n${x.description}`);
    await page.close();
  }
});
