// The one lookup of a Sightline XPath: its ` >>> ` segments enter same-origin frames and open
// shadow roots (within a shadow tree, any of its nodes is the context and `/` its root); null
// where the path leads nowhere or is not an XPath the document can read. A classic script that
// defines one global: the content script gets it injected before it (page.js), and the worker
// imports it to hand the same function to CDP's Runtime.evaluate.
globalThis.sightlineElementAtPath = function elementAtPath(path) {
  const segments = String(path).split(' >>> ');
  let root = document;
  let el = null;
  for (const [i, segment] of segments.entries()) {
    const context = root.nodeType === 11 ? root.firstChild : root;
    if (!context) return null;
    try {
      el = (context.ownerDocument ?? context).evaluate(segment, context, null, 9, null).singleNodeValue;
    } catch {
      return null; // not an XPath this document can read
    }
    if (!el) return null;
    if (i < segments.length - 1) {
      root = el.localName === 'iframe' || el.localName === 'frame' ? el.contentDocument : el.shadowRoot;
      if (!root) return null;
    }
  }
  return el;
};
