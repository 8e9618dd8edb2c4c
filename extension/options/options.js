// Options page: edits the settings the service worker reads (chrome.storage.local).
// Presets and price parsing come from the core, through the worker.
import { getSettings, maskKey, setSettings } from '../background/settings.js';

const $ = (id) => document.getElementById(id);
let storedKey = '';
let presets = [];

function send(type, payload = {}) {
  return chrome.runtime.sendMessage({ type: `sightline/${type}`, ...payload }).then((reply) => {
    if (reply?.error) throw new Error(reply.error);
    return reply;
  });
}

function showPresetHelp() {
  const p = presets.find((x) => x.provider === $('provider').value);
  $('providerHelp').textContent = p?.help ?? '';
  $('apiKey').placeholder = storedKey ? `saved: ${maskKey(storedKey)} — type to replace` : p?.needsKey === false ? 'not needed for local servers' : 'paste your key';
}

async function load() {
  if (!presets.length) {
    ({ presets } = await send('presets'));
    $('provider').replaceChildren(...presets.map((p) => new Option(p.label, p.provider)));
  }
  const { model, run, prices } = await getSettings();
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
  await showCache();
  $('prices').value = (await send('priceText', { prices })).text;
  showPresetHelp();
}

/** Picking a provider fills its base URL, a model to start from and the family it needs. */
$('provider').addEventListener('change', () => {
  const p = presets.find((x) => x.provider === $('provider').value);
  if (p?.baseUrl) $('baseUrl').value = p.baseUrl;
  if (p?.modelHint && !p.modelHint.includes(' ')) $('model').value = p.modelHint;
  if (p) $('family').value = p.family;
  showPresetHelp();
});

const number = (id) => ($(id).value === '' ? null : Number($(id).value));

/** The form's model settings; an empty key field means "keep the saved key". */
function formModel() {
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
    apiKey: $('apiKey').value.trim() || storedKey,
  };
}

$('settings').addEventListener('submit', async (e) => {
  e.preventDefault();
  $('pricesError').textContent = '';
  let prices;
  try {
    ({ prices } = await send('parsePrices', { text: $('prices').value }));
  } catch (err) {
    $('pricesError').textContent = err.message;
    $('status').textContent = 'Not saved: fix the price table.';
    return;
  }
  await setSettings({
    model: formModel(),
    run: { maxRounds: Number($('maxRounds').value), includeScreenshot: $('includeScreenshot').checked, useCache: $('useCache').checked },
    prices,
  });
  await load();
  $('status').textContent = 'Saved.';
});

$('check').addEventListener('click', async () => {
  const out = $('checkResult');
  out.className = 'muted';
  out.textContent = 'Asking the model…';
  $('check').disabled = true;
  try {
    const { check } = await send('checkModel', { model: formModel() });
    const tokens = check.usage ? ` · ${check.usage.promptTokens + check.usage.completionTokens} tokens${check.usage.estimated ? ' (estimated)' : ''}` : '';
    out.className = 'ok';
    out.textContent = `Connected in ${(check.ms / 1000).toFixed(1)} s${tokens}. The model said: “${check.reply.trim().slice(0, 80)}”`;
  } catch (err) {
    out.className = 'bad';
    out.textContent = err.message;
  } finally {
    $('check').disabled = false;
  }
});

$('resetPrices').addEventListener('click', async () => {
  $('prices').value = (await send('priceText', { prices: null })).text;
});

async function showCache(note = '') {
  const { entries } = await send('cacheInfo');
  $('cacheInfo').textContent = `${entries} cached ${entries === 1 ? 'entry' : 'entries'}${note ? ` — ${note}` : ''}`;
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
    await showCache(`imported ${file.name}`);
  } catch (err) {
    await showCache(err.message);
  }
  e.target.value = '';
});

$('clearCache').addEventListener('click', async () => {
  await send('clearCache');
  await showCache('cleared');
});

$('clearKey').addEventListener('click', async () => {
  await setSettings({ model: { apiKey: '' } });
  await load();
  $('status').textContent = 'Key removed.';
});

load().catch((err) => {
  $('status').textContent = `Could not load the settings: ${err.message}`;
});
