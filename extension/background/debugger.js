// chrome.debugger sessions, one per tab, attached on first use. CDP gives trusted input,
// screenshots and DOMSnapshot (the strict-CSP path).
const attached = new Set();

chrome.debugger.onDetach.addListener(({ tabId }) => attached.delete(tabId));
chrome.tabs.onRemoved.addListener((tabId) => attached.delete(tabId));

async function attach(tabId) {
  if (attached.has(tabId)) return;
  try {
    await chrome.debugger.attach({ tabId }, '1.3');
  } catch (e) {
    if (!/already attached/i.test(e.message)) {
      throw new Error(`cannot control this tab: ${e.message}. Close DevTools on it and try again.`);
    }
  }
  attached.add(tabId);
}

export async function cdp(tabId, method, params = {}) {
  await attach(tabId);
  try {
    return await chrome.debugger.sendCommand({ tabId }, method, params);
  } catch (e) {
    throw new Error(`${method} failed: ${e.message}`);
  }
}

export async function detach(tabId) {
  if (!attached.delete(tabId)) return;
  await chrome.debugger.detach({ tabId }).catch(() => {});
}
