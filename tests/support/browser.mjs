// The launcher is @sightline/playwright's (scripts/lib/playwright/lib/browser.mjs), shared with the
// scripts; the tests import it from here, with the checkout's root.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export { DIST, launchWithExtension } from '../../scripts/lib/playwright/lib/browser.mjs';
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The text of the user message's text parts, and its image parts, from a recorded request body. */
export function userMessage(body) {
  const user = body.messages.find((m) => m.role === 'user');
  const parts = typeof user.content === 'string' ? [{ type: 'text', text: user.content }] : user.content;
  return {
    text: parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n'),
    images: parts.filter((p) => p.type === 'image_url').map((p) => p.image_url.url),
  };
}
