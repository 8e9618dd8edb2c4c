// chrome.debugger sessions, one per tab, attached on first use. CDP gives trusted input,
// screenshots and DOMSnapshot (the CDP page reader). Frames Chrome renders in another process
// (cross-site iframes) get sessions of their own through auto-attach.
const attached = new Set();
/** tabId → Map(sessionId → targetId) of the tab's cross-process frames. */
const frameSessions = new Map();

chrome.debugger.onDetach.addListener(({ tabId }) => forget(tabId));
chrome.tabs.onRemoved.addListener((tabId) => forget(tabId));
chrome.debugger.onEvent.addListener(({ tabId }, method, params) => {
  if (tabId == null) return;
  if (method === 'Target.attachedToTarget' && params.targetInfo?.type === 'iframe') {
    if (!frameSessions.has(tabId)) frameSessions.set(tabId, new Map());
    frameSessions.get(tabId).set(params.sessionId, params.targetInfo.targetId);
  } else if (method === 'Target.detachedFromTarget') {
    frameSessions.get(tabId)?.delete(params.sessionId);
  }
});

function forget(tabId) {
  attached.delete(tabId);
  frameSessions.delete(tabId);
}

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
  // Existing cross-process frames are announced before this command answers.
  await chrome.debugger
    .sendCommand({ tabId }, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true })
    .catch(() => {});
}

export async function cdp(tabId, method, params = {}, sessionId) {
  await attach(tabId);
  try {
    return await chrome.debugger.sendCommand(sessionId ? { tabId, sessionId } : { tabId }, method, params);
  } catch (e) {
    throw new Error(`${method} failed: ${e.message}`);
  }
}

/** The tab's cross-process frames: `[{sessionId, frameId}]`. */
export async function remoteFrames(tabId) {
  await attach(tabId);
  return [...(frameSessions.get(tabId) ?? new Map())].map(([sessionId, frameId]) => ({ sessionId, frameId }));
}

export async function detach(tabId) {
  if (!attached.has(tabId)) return;
  forget(tabId);
  await chrome.debugger.detach({ tabId }).catch(() => {});
}
