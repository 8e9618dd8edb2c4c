// Model settings live in chrome.storage.local, read only by extension pages and this worker.
const KEY = 'settings';

// Values the core's ModelConfig / RunOptions read; what is absent takes the core's default.
// `prices` null means the core's default table.
export const DEFAULT_SETTINGS = {
  model: {
    provider: 'custom', baseUrl: '', apiKey: '', model: '', family: 'generic', stream: false,
    temperature: 0, maxTokens: 2048, timeoutMs: 120_000, maxRetries: 3, apiVersion: '',
  },
  // `image` is the core's ImageOptions subset a person sets: format and extra shrink.
  run: {
    maxRounds: 10, includeScreenshot: true, includeDescription: true, useCache: true, keepScreenshots: 3, describeRecorded: true,
    allowedSites: [],
    image: { format: { type: 'png' }, shrink: 1 },
  },
  // The panel's own settings: interface language ("auto" follows the browser), runs kept.
  ui: { language: 'auto', historyLimit: 50 },
  prices: null,
  // [{name, value, sites, selector}]: typed where the model writes <secret>name</secret>, only
  // into password, one-time-code and card fields or fields matching `selector`; never shown to it.
  secrets: [],
};

export async function getSettings() {
  const { [KEY]: stored } = await chrome.storage.local.get(KEY);
  return {
    model: { ...DEFAULT_SETTINGS.model, ...stored?.model },
    run: { ...DEFAULT_SETTINGS.run, ...stored?.run },
    ui: { ...DEFAULT_SETTINGS.ui, ...stored?.ui },
    prices: stored?.prices ?? null,
    secrets: Array.isArray(stored?.secrets) ? stored.secrets : [],
  };
}

export async function setSettings(patch) {
  const current = await getSettings();
  const next = {
    model: { ...current.model, ...patch?.model },
    run: { ...current.run, ...patch?.run },
    ui: { ...current.ui, ...patch?.ui },
    prices: patch?.prices !== undefined ? patch.prices : current.prices,
    secrets: patch?.secrets !== undefined ? patch.secrets : current.secrets,
  };
  await chrome.storage.local.set({ [KEY]: next });
  return next;
}

/** For display: the key replaced by a mask. */
export function maskKey(key) {
  if (!key) return '';
  return key.length <= 8 ? '••••' : `${key.slice(0, 3)}••••${key.slice(-4)}`;
}

/** For pages that only show settings: secrets by name and sites, values left out. */
export function withoutSecretValues(settings) {
  return { ...settings, secrets: settings.secrets.map(({ name, sites, selector }) => ({ name, sites, selector: selector ?? '', value: '' })) };
}
