// Options page: edits the settings the service worker reads (settings.js: chrome.storage.local and the vault).
// Presets and price parsing come from the core, through the worker.
import { getSettings, maskKey, setSettings } from '../background/settings.js';
import { loadLanguage, t, translate } from '../shared/i18n.js';
import { personsTab } from '../shared/persons-tab.js';

const $ = (id) => document.getElementById(id);
let storedKey = '';
let storedPlannerKey = '';
let presets = [];
let pairings = [];
// The secrets as saved: a row whose value field is left empty keeps its saved value.
let storedSecrets = [];
// The tab the panel framing this page is for (`?tab=N`), else none: the person's own is found.
const params = new URLSearchParams(location.search);
const pinnedTab = params.has('tab') ? Number(params.get('tab')) : null;

function send(type, payload = {}) {
  return chrome.runtime.sendMessage({ type: `sightline/${type}`, ...payload }).then((reply) => {
    if (reply?.error) throw new Error(reply.error);
    return reply;
  });
}

let keyQuestion = 0; // typing in the URL asks again: only the latest answer is shown
/** What the key field says: the saved key's mask, or that it belongs to another address. */
async function showPresetHelp() {
  const p = presets.find((x) => x.provider === $('provider').value);
  $('providerHelp').textContent = p?.help ?? '';
  const asked = ++keyQuestion;
  const key = await keyFits();
  if (asked !== keyQuestion) return;
  $('apiKey').placeholder = !key.saved ? t(p?.needsKey === false ? 'keyNotNeeded' : 'keyPaste')
    : key.fits ? t('keySaved', maskKey(storedKey)) : t('keyForOther', key.enteredFor);
}

/** Whether the saved key goes to the base URL in the form (the core decides: same origin only). */
function keyFits() {
  return send('keyFits', { baseUrl: $('baseUrl').value.trim() }).catch(() => ({ saved: !!storedKey, fits: true }));
}

let plannerKeyQuestion = 0;
/** The planning model's key field: its own saved key, bound to the address it was entered for. */
async function showPlannerKey() {
  $('plannerFields').hidden = !$('plannerOn').checked;
  const p = presets.find((x) => x.provider === $('plannerProvider').value);
  const asked = ++plannerKeyQuestion;
  const key = await send('keyFits', { baseUrl: $('plannerBaseUrl').value.trim(), role: 'planner' })
    .catch(() => ({ saved: !!storedPlannerKey, fits: true }));
  if (asked !== plannerKeyQuestion) return;
  $('plannerApiKey').placeholder = !key.saved ? t(p?.needsKey === false ? 'keyNotNeeded' : 'keyPaste')
    : key.fits ? t('keySaved', maskKey(storedPlannerKey)) : t('keyForOther', key.enteredFor);
}

async function load() {
  if (!presets.length) {
    ({ presets, pairings } = await send('presets'));
    $('provider').replaceChildren(...presets.map((p) => new Option(p.label, p.provider)));
    $('plannerProvider').replaceChildren(...presets.map((p) => new Option(p.label, p.provider)));
    $('pairing').append(...pairings.map((p) => new Option(p.label, p.id)));
  }
  const { model, planner, run, ui, prices, secrets } = await getSettings();
  $('plannerOn').checked = !!planner.enabled;
  $('plannerProvider').value = planner.provider;
  $('plannerBaseUrl').value = planner.baseUrl;
  $('plannerModel').value = planner.model;
  storedPlannerKey = planner.apiKey;
  $('plannerApiKey').value = '';
  $('pairing').value = '';
  $('pairingHelp').textContent = '';
  $('provider').value = model.provider;
  $('baseUrl').value = model.baseUrl;
  $('model').value = model.model;
  $('family').value = model.family;
  $('stream').checked = !!model.stream;
  $('temperature').value = model.temperature ?? '';
  $('maxTokens').value = model.maxTokens ?? '';
  $('timeoutS').value = Math.round((model.timeoutMs ?? 120_000) / 1000);
  $('maxRetries').value = model.maxRetries ?? 3;
  $('apiVersion').value = model.apiVersion ?? '';
  storedKey = model.apiKey;
  $('apiKey').value = '';
  $('maxRounds').value = run.maxRounds;
  $('includeScreenshot').checked = !!run.includeScreenshot;
  $('useCache').checked = run.useCache !== false;
  $('describeRecorded').checked = run.describeRecorded !== false;
  $('checkSuccess').checked = run.checkSuccess !== false;
  const format = run.image?.format ?? { type: 'png' };
  $('imageFormat').value = format.type;
  $('jpegQuality').value = format.quality ?? 80;
  $('imageScale').value = Math.round((run.image?.shrink ?? 1) * 100);
  $('keepScreenshots').value = run.keepScreenshots ?? 3;
  $('includeDescription').checked = run.includeDescription !== false;
  $('historyLimit').value = ui.historyLimit;
  $('allowedSites').value = (run.allowedSites ?? []).join('\n');
  storedSecrets = secrets;
  $('secrets').replaceChildren(...secrets.map((s, i) => secretRow(s, i)));
  $('language').value = ui.language;
  showImageFields();
  await showCache();
  $('prices').value = (await send('priceText', { prices })).text;
  $('knowledge').value = (await send('knowledgeText', { knowledge: run.knowledge ?? [] })).text;
  await showPresetHelp();
  await showPlannerKey();
}

/** Picking a provider fills its base URL, a model to start from and the family it needs. */
$('provider').addEventListener('change', () => {
  const p = presets.find((x) => x.provider === $('provider').value);
  if (p?.baseUrl) $('baseUrl').value = p.baseUrl;
  if (p?.modelHint && !p.modelHint.includes(' ')) $('model').value = p.modelHint;
  if (p) $('family').value = p.family;
  showPresetHelp();
});
$('baseUrl').addEventListener('input', () => showPresetHelp());

/** Picking a provider for the planner fills its base URL and a model to start from. */
$('plannerProvider').addEventListener('change', () => {
  const p = presets.find((x) => x.provider === $('plannerProvider').value);
  if (p?.baseUrl) $('plannerBaseUrl').value = p.baseUrl;
  if (p?.modelHint && !p.modelHint.includes(' ')) $('plannerModel').value = p.modelHint;
  showPlannerKey();
});
$('plannerBaseUrl').addEventListener('input', () => showPlannerKey());
$('plannerOn').addEventListener('change', () => showPlannerKey());

/** A pairing fills both models (the planner here, the acting model above) and turns planning on. */
$('pairing').addEventListener('change', () => {
  const pair = pairings.find((p) => p.id === $('pairing').value);
  if (!pair) return;
  $('provider').value = pair.actor.provider;
  $('baseUrl').value = pair.actor.baseUrl;
  $('model').value = pair.actor.model;
  $('family').value = pair.actor.family;
  $('plannerProvider').value = pair.planner.provider;
  $('plannerBaseUrl').value = pair.planner.baseUrl;
  $('plannerModel').value = pair.planner.model;
  $('plannerOn').checked = true;
  $('pairingHelp').textContent = `${pair.help} ${t('pairingFilled')}`;
  showPresetHelp();
  showPlannerKey();
});

/** A pasted Midscene block fills the model fields (the core reads it); saving keeps them. */
$('envFill').addEventListener('click', async () => {
  const result = $('envResult');
  try {
    const { settings } = await send('envSettings', { text: $('envText').value });
    const { model } = settings;
    if (model.baseUrl) {
      $('baseUrl').value = model.baseUrl;
      $('provider').value = 'custom';
    }
    if (model.model) $('model').value = model.model;
    if (model.apiKey) $('apiKey').value = model.apiKey;
    if (model.family) $('family').value = model.family;
    // MIDSCENE_PLANNING_MODEL_*: a separate planning model, switched on.
    const { planner } = settings;
    if (planner?.baseUrl || planner?.model) {
      $('plannerOn').checked = true;
      if (planner.baseUrl) {
        $('plannerBaseUrl').value = planner.baseUrl;
        $('plannerProvider').value = 'custom';
      }
      if (planner.model) $('plannerModel').value = planner.model;
      if (planner.apiKey) $('plannerApiKey').value = planner.apiKey;
      showPlannerKey();
    }
    const filled = ['baseUrl', 'model', 'apiKey', 'family'].filter((k) => model[k]).map((k) => t(k === 'model' ? 'modelName' : k));
    result.textContent = [t('envFilled', filled.join(', ')), settings.ignored?.length ? t('envIgnored', settings.ignored.join(', ')) : ''].filter(Boolean).join(' ');
    $('envText').value = ''; // the key is in the key field now; the block is not kept
    showPresetHelp();
  } catch (e) {
    result.textContent = e.message;
  }
});

/** JPEG quality only means something for JPEG; image settings only with screenshots on. */
function showImageFields() {
  $('jpegQuality').disabled = $('imageFormat').value !== 'jpeg' || !$('includeScreenshot').checked;
  for (const id of ['imageFormat', 'imageScale', 'keepScreenshots']) $(id).disabled = !$('includeScreenshot').checked;
}
$('imageFormat').addEventListener('change', showImageFields);
$('includeScreenshot').addEventListener('change', showImageFields);

const number = (id) => ($(id).value === '' ? null : Number($(id).value));

/** The site of the tab the person works in (its host, with a port it names), '' for no web page. */
async function personsSite() {
  const tab = await personsTab(pinnedTab).catch(() => null);
  try {
    const url = new URL(tab?.url ?? '');
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : '';
  } catch {
    return '';
  }
}

/**
 * One secret's row: name, value (never shown again once saved), the sites it is for, and a
 * selector for fields it may go into besides password, one-time-code and card fields. The sites
 * start as the site of the tab open when the value is typed, unless the person wrote their own.
 * A secret saved without sites (by an earlier version) is flagged: it is typed nowhere.
 */
function secretRow(secret = { name: '', sites: [], selector: '' }, stored = -1) {
  const row = document.createElement('div');
  row.className = 'row secret';
  row.dataset.stored = String(stored);
  const field = (cls, type, value, placeholder) => {
    const input = document.createElement('input');
    Object.assign(input, { className: cls, type, value, placeholder, autocomplete: 'off', spellcheck: false });
    input.setAttribute('aria-label', placeholder);
    return input;
  };
  const remove = document.createElement('button');
  Object.assign(remove, { type: 'button', className: 'secondary', textContent: t('removeSecret') });
  remove.addEventListener('click', () => row.remove());
  const value = field('secret-value', 'password', '', stored >= 0 ? t('secretSaved') : t('secretValue'));
  const sites = field('secret-sites', 'text', (secret.sites ?? []).join(', '), t('secretSites'));
  let sitesChosen = false;
  sites.addEventListener('input', () => { sitesChosen = true; });
  value.addEventListener('input', async () => {
    if (sitesChosen || sites.value.trim()) return;
    sitesChosen = true; // once: the tab open when the value was entered
    const site = await personsSite();
    if (site && !sites.value.trim()) sites.value = site;
  });
  row.append(field('secret-name', 'text', secret.name, t('secretName')), value, sites, field('secret-selector', 'text', secret.selector ?? '', t('secretSelector')), remove);
  if (stored >= 0 && !secret.sites?.length) {
    row.classList.add('unsited');
    const warning = document.createElement('p');
    Object.assign(warning, { className: 'error small secret-warning', textContent: t('secretUnsited', secret.name) });
    row.append(warning);
  }
  return row;
}
$('addSecret').addEventListener('click', () => $('secrets').append(secretRow()));

/** True when the browser reads `text` as a CSS selector. */
function isSelector(text) {
  try {
    document.createDocumentFragment().querySelector(text);
    return true;
  } catch {
    return false;
  }
}

const listOf = (text) => text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);

/** The secrets as the form has them, or a message saying what is wrong. */
function formSecrets() {
  const secrets = [];
  for (const row of $('secrets').querySelectorAll('.secret')) {
    const name = row.querySelector('.secret-name').value.trim();
    const typed = row.querySelector('.secret-value').value;
    const saved = storedSecrets[Number(row.dataset.stored)];
    const value = typed || saved?.value || '';
    const sites = listOf(row.querySelector('.secret-sites').value);
    const selector = row.querySelector('.secret-selector').value.trim();
    if (!name && !typed) continue;
    if (!/^[\w.-]+$/.test(name)) return { error: t('secretBadName', name) };
    if (!value) return { error: t('secretNoValue', name) };
    if (secrets.some((s) => s.name === name)) return { error: t('secretTwice', name) };
    if (selector && !isSelector(selector)) return { error: t('secretBadSelector', selector, name) };
    // A secret is typed on its own sites only. One an earlier version saved without them, left
    // as it was, is kept (flagged, typed nowhere); a new or changed one needs them.
    const leftAsSaved = saved && !saved.sites?.length && !typed && name === saved.name;
    if (!sites.length && !leftAsSaved) return { error: t('secretNoSites', name) };
    secrets.push({ name, value, sites, selector });
  }
  return { secrets };
}

/**
 * The form's model settings. A typed key is the key for the base URL typed with it; an empty
 * key field keeps the saved key, bound to the address it was entered for.
 */
function formModel() {
  const typedKey = $('apiKey').value.trim();
  return {
    provider: $('provider').value,
    baseUrl: $('baseUrl').value.trim(),
    model: $('model').value.trim(),
    family: $('family').value,
    stream: $('stream').checked,
    temperature: number('temperature'),
    maxTokens: number('maxTokens'),
    timeoutMs: (number('timeoutS') ?? 120) * 1000,
    maxRetries: number('maxRetries') ?? 3,
    apiVersion: $('apiVersion').value.trim(),
    ...(typedKey ? { apiKey: typedKey } : {}),
  };
}

/** The form's planning model: a typed key is the key for the base URL typed with it. */
function formPlanner() {
  const typedKey = $('plannerApiKey').value.trim();
  return {
    enabled: $('plannerOn').checked,
    provider: $('plannerProvider').value,
    baseUrl: $('plannerBaseUrl').value.trim(),
    model: $('plannerModel').value.trim(),
    ...(typedKey ? { apiKey: typedKey } : {}),
  };
}

/** The form's run settings: what the model is sent, and how much. */
function formRun() {
  const quality = Math.min(100, Math.max(1, Math.round(number('jpegQuality') ?? 80)));
  return {
    maxRounds: Number($('maxRounds').value),
    includeScreenshot: $('includeScreenshot').checked,
    useCache: $('useCache').checked,
    describeRecorded: $('describeRecorded').checked,
    checkSuccess: $('checkSuccess').checked,
    includeDescription: $('includeDescription').checked,
    keepScreenshots: Number($('keepScreenshots').value) || 3,
    allowedSites: listOf($('allowedSites').value),
    image: {
      format: $('imageFormat').value === 'jpeg' ? { type: 'jpeg', quality } : { type: 'png' },
      shrink: Math.min(100, Math.max(25, number('imageScale') ?? 100)) / 100,
    },
  };
}

$('settings').addEventListener('submit', async (e) => {
  e.preventDefault();
  $('pricesError').textContent = '';
  if (!$('includeDescription').checked && !$('includeScreenshot').checked) {
    $('status').textContent = t('notSavedBlind');
    return;
  }
  const { secrets, error } = formSecrets();
  if (error) {
    $('status').textContent = error;
    return;
  }
  $('knowledgeError').textContent = '';
  let knowledge;
  try {
    ({ knowledge } = await send('parseKnowledge', { text: $('knowledge').value }));
  } catch (err) {
    $('knowledgeError').textContent = err.message;
    $('status').textContent = t('notSavedKnowledge');
    return;
  }
  let prices;
  try {
    ({ prices } = await send('parsePrices', { text: $('prices').value }));
  } catch (err) {
    $('pricesError').textContent = err.message;
    $('status').textContent = t('notSavedPrices');
    return;
  }
  await setSettings({
    model: formModel(),
    planner: formPlanner(),
    run: { ...formRun(), knowledge },
    ui: { language: $('language').value, historyLimit: Number($('historyLimit').value) },
    prices,
    secrets,
  });
  await loadLanguage();
  translate();
  await load();
  const key = await keyFits();
  $('status').textContent = key.fits ? t('saved') : t('savedKeyElsewhere', key.enteredFor);
});

$('check').addEventListener('click', async () => {
  const out = $('checkResult');
  out.className = 'muted';
  out.textContent = t('checkAsking');
  $('check').disabled = true;
  try {
    const { check } = await send('checkModel', { model: formModel() });
    const tokens = check.usage ? ` · ${t(check.usage.estimated ? 'checkTokensEstimated' : 'checkTokens', check.usage.promptTokens + check.usage.completionTokens)}` : '';
    out.className = 'ok';
    const took = check.ms >= 1000 ? `${(check.ms / 1000).toFixed(1)} s` : `${Math.round(check.ms)} ms`;
    out.textContent = t('checkConnected', `${took}${tokens}`, check.reply.trim().slice(0, 80));
  } catch (err) {
    out.className = 'bad';
    out.textContent = err.message;
  } finally {
    $('check').disabled = false;
  }
});

$('checkPlanner').addEventListener('click', async () => {
  const out = $('checkPlannerResult');
  out.className = 'muted';
  out.textContent = t('checkAsking');
  $('checkPlanner').disabled = true;
  try {
    const { enabled, ...model } = formPlanner();
    const { check } = await send('checkModel', { model, role: 'planner' });
    const took = check.ms >= 1000 ? `${(check.ms / 1000).toFixed(1)} s` : `${Math.round(check.ms)} ms`;
    out.className = 'ok';
    out.textContent = t('checkConnected', took, check.reply.trim().slice(0, 80));
  } catch (err) {
    out.className = 'bad';
    out.textContent = err.message;
  } finally {
    $('checkPlanner').disabled = false;
  }
});

$('clearPlannerKey').addEventListener('click', async () => {
  await setSettings({ planner: { apiKey: '' } });
  await load();
  $('status').textContent = t('keyRemoved');
});

$('resetPrices').addEventListener('click', async () => {
  $('prices').value = (await send('priceText', { prices: null })).text;
});

async function showCache(note = '') {
  const { entries } = await send('cacheInfo');
  $('cacheInfo').textContent = `${t('cacheEntries', entries)}${note ? ` — ${note}` : ''}`;
}

$('exportCache').addEventListener('click', async () => {
  const { json } = await send('exportCache');
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
  a.download = 'sightline-cache.json';
  a.click();
  URL.revokeObjectURL(a.href);
});

$('importCache').addEventListener('change', async (e) => {
  const file = e.target.files?.[0];
  if (!file) return;
  try {
    await send('importCache', { json: await file.text() });
    await showCache(t('cacheImported', file.name));
  } catch (err) {
    await showCache(err.message);
  }
  e.target.value = '';
});

$('clearCache').addEventListener('click', async () => {
  await send('clearCache');
  await showCache(t('cacheCleared'));
});

$('clearKey').addEventListener('click', async () => {
  await setSettings({ model: { apiKey: '' } });
  await load();
  $('status').textContent = t('keyRemoved');
});

if (new URLSearchParams(location.search).has('embedded')) document.body.classList.add('embedded');
// The panel (or another options tab) may change the language: follow it.
chrome.storage.onChanged.addListener(async (changes) => {
  if (changes.settings?.newValue?.ui?.language === changes.settings?.oldValue?.ui?.language) return;
  await loadLanguage();
  translate();
  showPresetHelp();
});

(async () => {
  await loadLanguage().catch((e) => console.error('loading the chosen language failed', e));
  document.title = t('settingsTitle');
  translate();
  await load();
  $('settings').inert = false;
})().catch((err) => {
  $('status').textContent = t('couldNotLoadSettings', err.message);
});
