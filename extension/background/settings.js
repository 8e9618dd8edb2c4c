// Settings. What is not secret lives in chrome.storage.local; the API key (with the base URL it
// was entered for) and the secrets' values live in the vault, the extension origin's IndexedDB
// (store.js), which content scripts cannot open on any Chrome version. chrome.storage.local is
// readable by content scripts wherever Chrome cannot restrict it, so nothing secret goes there.
import { getVault, putVault } from './store.js';

const KEY = 'settings';

// Values the core's ModelConfig / RunOptions read; what is absent takes the core's default.
// `prices` null means the core's default table. `apiKeyFor`: the base URL the key was entered
// for; the core sends the key to that origin only.
export const DEFAULT_SETTINGS = {
  model: {
    provider: 'custom', baseUrl: '', apiKey: '', apiKeyFor: '', model: '', family: 'generic', stream: false,
    temperature: 0, maxTokens: 2048, timeoutMs: 120_000, maxRetries: 3, apiVersion: '',
  },
  // The optional planning model (the core's RunOptions.planner when `enabled`): it decides each
  // round's actions and describes their elements; the model above then only finds each one.
  // Its key is kept like the model's: in the vault, bound to the base URL it was entered for.
  planner: {
    enabled: false, provider: 'openai', baseUrl: '', apiKey: '', apiKeyFor: '', model: '', family: 'generic', stream: false,
    temperature: 0, maxTokens: 2048, timeoutMs: 120_000, maxRetries: 3, apiVersion: '',
  },
  // `image` is the core's ImageOptions subset a person sets: format and extra shrink.
  run: {
    maxRounds: 10, includeScreenshot: true, includeDescription: true, useCache: true, keepScreenshots: 3, describeRecorded: true,
    allowedSites: [],
    // [{sites, text}]: what the model is told on pages of those sites (checked by the core).
    knowledge: [],
    image: { format: { type: 'png' }, shrink: 1 },
  },
  // The panel's own settings: interface language ("auto" follows the browser), runs kept.
  ui: { language: 'auto', historyLimit: 50 },
  prices: null,
  // [{name, value, sites, selector}]: typed where the model writes <secret>name</secret>, only
  // into password, one-time-code and card fields or fields matching `selector`; never shown to it.
  secrets: [],
};

let migration = null;
/** Settings saved by an earlier version kept the key and the secrets in chrome.storage.local: moved to the vault once. */
function migrated() {
  migration ??= moveSecretsToVault().catch((e) => {
    migration = null;
    throw e;
  });
  return migration;
}

async function moveSecretsToVault() {
  const { [KEY]: stored } = await chrome.storage.local.get(KEY);
  if (!stored || (stored.model?.apiKey === undefined && stored.secrets === undefined)) return;
  const { apiKey = '', ...model } = stored.model ?? {};
  const { secrets, ...rest } = stored;
  const vault = await getVault();
  await putVault({
    ...vault,
    apiKey: vault.apiKey || apiKey,
    // The key was used with the base URL saved beside it: it stays bound to that one.
    apiKeyFor: vault.apiKey ? vault.apiKeyFor : apiKey ? model.baseUrl ?? '' : '',
    secrets: vault.secrets?.length ? vault.secrets : Array.isArray(secrets) ? secrets : [],
  });
  await chrome.storage.local.set({ [KEY]: { ...rest, model } });
}

export async function getSettings() {
  await migrated();
  const [{ [KEY]: stored }, vault] = await Promise.all([chrome.storage.local.get(KEY), getVault()]);
  return {
    model: { ...DEFAULT_SETTINGS.model, ...stored?.model, apiKey: vault.apiKey ?? '', apiKeyFor: vault.apiKeyFor ?? '' },
    planner: {
      ...DEFAULT_SETTINGS.planner, ...stored?.planner, apiKey: vault.plannerApiKey ?? '', apiKeyFor: vault.plannerApiKeyFor ?? '',
    },
    run: { ...DEFAULT_SETTINGS.run, ...stored?.run },
    ui: { ...DEFAULT_SETTINGS.ui, ...stored?.ui },
    prices: stored?.prices ?? null,
    secrets: Array.isArray(vault.secrets) ? vault.secrets : [],
  };
}

/**
 * A key given in `patch.model.apiKey` is the key for the base URL saved with it; without one,
 * the saved key keeps the URL it was entered for, whatever the base URL becomes.
 */
export async function setSettings(patch) {
  const current = await getSettings();
  const next = {
    model: overlayModel(current.model, patch?.model),
    planner: overlayModel(current.planner, patch?.planner),
    run: { ...current.run, ...patch?.run },
    ui: { ...current.ui, ...patch?.ui },
    prices: patch?.prices !== undefined ? patch.prices : current.prices,
    secrets: patch?.secrets !== undefined ? patch.secrets : current.secrets,
  };
  const { apiKey, apiKeyFor, ...model } = next.model;
  const { apiKey: plannerApiKey, apiKeyFor: plannerApiKeyFor, ...planner } = next.planner;
  await putVault({ apiKey, apiKeyFor, plannerApiKey, plannerApiKeyFor, secrets: next.secrets });
  await chrome.storage.local.set({ [KEY]: { model, planner, run: next.run, ui: next.ui, prices: next.prices } });
  return next;
}

/**
 * Saved model settings overlaid by a caller's (a run's `opts.model`, the form's unsaved ones).
 * A key in `override` goes with the override's base URL; otherwise the saved key stays bound
 * to the URL it was entered for, and the core refuses to send it anywhere else.
 */
export function overlayModel(saved, override = {}) {
  const model = { ...saved, ...override };
  model.apiKeyFor = override?.apiKey !== undefined ? (model.apiKey ? model.baseUrl : '') : saved.apiKeyFor;
  return model;
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
