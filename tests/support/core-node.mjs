// The WASM core in Node is @sightline/playwright's (scripts/lib/playwright/lib/core-node.mjs); the tests import it from here.
export { core } from '../../scripts/lib/playwright/lib/core-node.mjs';
