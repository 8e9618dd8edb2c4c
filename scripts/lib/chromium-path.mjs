// The Chromium the scripts and tests drive: $CHROMIUM_PATH, else where Debian's apt (Linux) or
// Homebrew's cask (macOS) puts it. Chromium, not branded Chrome or Edge: those ignore
// --load-extension. `node scripts/lib/chromium-path.mjs` prints it (scripts/setup asks).
import { fileURLToPath } from 'node:url';

const INSTALLED = { darwin: '/Applications/Chromium.app/Contents/MacOS/Chromium' };

export const CHROMIUM = process.env.CHROMIUM_PATH || INSTALLED[process.platform] || '/usr/bin/chromium';

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(CHROMIUM);
