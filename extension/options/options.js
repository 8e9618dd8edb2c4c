// Options page: edits the settings the service worker reads (chrome.storage.local).
import { getSettings, maskKey, setSettings } from '../background/settings.js';

const $ = (id) => document.getElementById(id);
let storedKey = '';

async function load() {
  const { model, run } = await getSettings();
  $('baseUrl').value = model.baseUrl;
  $('model').value = model.model;
  $('family').value = model.family;
  $('stream').checked = !!model.stream;
  storedKey = model.apiKey;
  $('apiKey').value = '';
  $('apiKey').placeholder = storedKey ? `saved: ${maskKey(storedKey)} — type to replace` : 'sk-…';
  $('maxRounds').value = run.maxRounds;
  $('includeScreenshot').checked = !!run.includeScreenshot;
}

$('settings').addEventListener('submit', async (e) => {
  e.preventDefault();
  const typedKey = $('apiKey').value.trim();
  await setSettings({
    model: {
      baseUrl: $('baseUrl').value.trim(),
      model: $('model').value.trim(),
      family: $('family').value,
      stream: $('stream').checked,
      apiKey: typedKey || storedKey, // an empty field keeps the saved key
    },
    run: { maxRounds: Number($('maxRounds').value), includeScreenshot: $('includeScreenshot').checked },
  });
  await load();
  $('status').textContent = 'Saved.';
});

$('clearKey').addEventListener('click', async () => {
  await setSettings({ model: { apiKey: '' } });
  await load();
  $('status').textContent = 'Key removed.';
});

load();
