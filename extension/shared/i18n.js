// Interface strings from _locales/<language>/messages.json. By default the browser's language,
// through chrome.i18n; a language chosen in Settings is read from its messages.json directly,
// because chrome.i18n always follows the browser and cannot be switched.
import { getSettings } from '../background/settings.js';

export const LANGUAGES = ['en', 'zh_CN'];

let chosen = null; // { language, messages } when Settings picks a language; null: the browser's

/** Loads the language Settings asks for (or the browser's); call before `translate`. */
export async function loadLanguage() {
  const { ui } = await getSettings();
  chosen = null;
  if (LANGUAGES.includes(ui.language)) {
    const url = chrome.runtime.getURL(`_locales/${ui.language}/messages.json`);
    chosen = { language: ui.language, messages: await (await fetch(url)).json() };
  }
  document.documentElement.lang = language().replace('_', '-');
}

/** The interface language in use, e.g. "en" or "zh_CN". */
export function language() {
  return chosen ? chosen.language : resolveLanguage('auto');
}

/**
 * The language a Settings choice (`ui.language`) means: itself when Sightline speaks it, else
 * the browser's (when Sightline speaks that), else English. Runs are written in it too.
 */
export function resolveLanguage(setting) {
  if (LANGUAGES.includes(setting)) return setting;
  const ui = chrome.i18n.getUILanguage().replace('-', '_');
  return LANGUAGES.find((l) => l === ui || l === ui.split('_')[0]) ?? 'en';
}

/**
 * The message `key` with its placeholders filled from `subs` in order, as chrome.i18n does:
 * `$name$` takes its placeholder's content, whose `$1`… take the substitutions.
 */
export function t(key, ...subs) {
  const args = subs.map(String);
  const text = chosen ? fill(chosen.messages[key], args) : chrome.i18n.getMessage(key, args);
  if (text) return text;
  console.warn(`Sightline: no "${key}" message`);
  return key;
}

function fill(entry, args) {
  if (!entry) return '';
  const nth = (s) => s.replace(/\$(\d)/g, (_, n) => args[Number(n) - 1] ?? '');
  return entry.message
    .replace(/\$([A-Za-z0-9_@]+)\$/g, (_, name) => nth(entry.placeholders?.[name.toLowerCase()]?.content ?? ''))
    .replace(/\$\$/g, '$');
}

/**
 * Fills the page's marked elements: `data-i18n="key"` sets the text, and
 * `data-i18n-attr="placeholder:key; title:key2"` sets attributes.
 */
export function translate(root = document) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of node.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split(':').map((s) => s.trim());
      if (attr && key) node.setAttribute(attr, t(key));
    }
  }
}
