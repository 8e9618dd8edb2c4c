// The launcher is shared with the scripts (scripts/lib/browser.mjs); the tests import it from here.
export { DIST, ROOT, launchWithExtension } from '../../scripts/lib/browser.mjs';

/** The text of the user message's text parts, and its image parts, from a recorded request body. */
export function userMessage(body) {
  const user = body.messages.find((m) => m.role === 'user');
  const parts = typeof user.content === 'string' ? [{ type: 'text', text: user.content }] : user.content;
  return {
    text: parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n'),
    images: parts.filter((p) => p.type === 'image_url').map((p) => p.image_url.url),
  };
}
