// Model settings live in chrome.storage.local, read only by extension pages and this worker.
const KEY = 'settings';

export const DEFAULT_SETTINGS = {
  model: { baseUrl: '', apiKey: '', model: '', family: 'generic', stream: false },
  run: { maxRounds: 10, includeScreenshot: true },
};

export async function getSettings() {
  const { [KEY]: stored } = await chrome.storage.local.get(KEY);
  return {
    model: { ...DEFAULT_SETTINGS.model, ...stored?.model },
    run: { ...DEFAULT_SETTINGS.run, ...stored?.run },
  };
}

export async function setSettings(patch) {
  const current = await getSettings();
  const next = {
    model: { ...current.model, ...patch?.model },
    run: { ...current.run, ...patch?.run },
  };
  await chrome.storage.local.set({ [KEY]: next });
  return next;
}

/** For display: the key replaced by a mask. */
export function maskKey(key) {
  if (!key) return '';
  return key.length <= 8 ? '••••' : `${key.slice(0, 3)}••••${key.slice(-4)}`;
}
