// Resolves Sightline element paths in a tab, in the extension's isolated world (so closed
// shadow roots open through chrome.dom) and across frames, cross-origin ones included:
// the top frame walks segments until a frame it may not enter, and the frame with that URL
// resolves the rest. Each element is checked for match count, kind, tag, text and box.

/** Runs in a frame: resolves `items` ({key, segments, offset}) as far as this frame can. */
function resolveInFrame(items, frameUrl) {
  if (frameUrl && location.href !== frameUrl) return null;
  const shadowOf = (el) => el.shadowRoot ?? chrome.dom?.openOrClosedShadowRoot(el) ?? null;
  return items.map((item) => {
    try {
      return resolveOne(item);
    } catch (e) {
      return { key: item.key, problem: `threw ${e.message}` };
    }
  });
  function resolveOne({ key, segments, offset }) {
    let context = document;
    let [ox, oy] = offset;
    for (let s = 0; s < segments.length; s++) {
      const found = (context.ownerDocument ?? context).evaluate(segments[s], context, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      if (found.snapshotLength !== 1) return { key, problem: `${found.snapshotLength} matches for segment ${s + 1}` };
      const node = found.snapshotItem(0);
      if (s === segments.length - 1) {
        let rect;
        if (node.nodeType === Node.TEXT_NODE) {
          const range = node.ownerDocument.createRange();
          range.selectNodeContents(node);
          rect = range.getBoundingClientRect();
        } else {
          rect = node.getBoundingClientRect();
        }
        return {
          key,
          found: {
            text: node.nodeType === Node.TEXT_NODE,
            tag: node.localName ?? null,
            content: (node.nodeType === Node.TEXT_NODE ? node.data : node.textContent).replace(/\s+/g, ' ').trim(),
            rect: { x: rect.x + ox, y: rect.y + oy, width: rect.width, height: rect.height },
          },
        };
      }
      if (node.localName === 'iframe' || node.localName === 'frame') {
        const r = node.getBoundingClientRect();
        const cs = getComputedStyle(node);
        ox += r.x + node.clientLeft + parseFloat(cs.paddingLeft);
        oy += r.y + node.clientTop + parseFloat(cs.paddingTop);
        let inner = null;
        try { inner = node.contentDocument; } catch { /* cross-origin */ }
        if (!inner) return { key, pending: { frameUrl: node.src, segments: segments.slice(s + 1), offset: [ox, oy] } };
        context = inner;
      } else {
        // XPath takes no shadow root as its context; any node inside makes `/` that root.
        context = shadowOf(node)?.firstChild;
        if (!context) return { key, problem: `segment ${s + 1} is no shadow host` };
      }
    }
    return { key, problem: 'empty path' };
  }
}

async function runInFrames(browser, tabId, items, frameUrl) {
  return browser.sw.evaluate(async ([tabId, items, frameUrl, source]) => {
    const func = new Function(`return (${source})`)();
    const results = await chrome.scripting.executeScript({
      target: frameUrl ? { tabId, allFrames: true } : { tabId },
      func, args: [items, frameUrl],
    });
    return results.map((r) => r.result).find(Boolean) ?? items.map(({ key }) => ({ key, problem: `no frame at ${frameUrl}` }));
  }, [tabId, items, frameUrl ?? null, resolveInFrame.toString()]);
}

/**
 * For each element and each of its paths (xpath, xpathText), a problem string; [] when every
 * path finds exactly that element.
 */
export async function pathProblems(browser, tabId, elements) {
  const items = [];
  for (const e of elements) {
    for (const field of ['xpath', 'xpathText']) {
      if (e[field]) items.push({ key: `${e.index}:${field}`, segments: e[field].split(' >>> '), offset: [0, 0] });
    }
  }
  let results = await runInFrames(browser, tabId, items);
  const pending = results.filter((r) => r.pending);
  for (const frameUrl of new Set(pending.map((r) => r.pending.frameUrl))) {
    const batch = pending.filter((r) => r.pending.frameUrl === frameUrl).map((r) => ({ key: r.key, ...r.pending }));
    const inner = await runInFrames(browser, tabId, batch, frameUrl);
    results = results.map((r) => inner.find((i) => i.key === r.key) ?? r);
  }
  const byIndex = new Map(elements.map((e) => [String(e.index), e]));
  const problems = [];
  for (const r of results) {
    const e = byIndex.get(r.key.split(':')[0]);
    const where = `[${r.key}] ${e.tag} "${e.content}"`;
    if (r.problem || r.pending) { problems.push(`${where}: ${r.problem ?? 'unresolved frame'}`); continue; }
    const f = r.found;
    if (e.kind === 'TEXT' && !f.text && !r.key.endsWith('xpathText')) problems.push(`${where}: not a text node`);
    if (e.kind !== 'TEXT' && f.tag !== e.tag) problems.push(`${where}: found <${f.tag}>`);
    if (e.kind === 'TEXT' && f.content !== e.content) problems.push(`${where}: text "${f.content}"`);
    const off = Math.max(...['x', 'y', 'width', 'height'].map((k) => Math.abs(f.rect[k] - e.rect[k])));
    if (off > 1) problems.push(`${where}: box off by ${off.toFixed(1)}px`);
  }
  return problems;
}
