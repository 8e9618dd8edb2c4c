// The WASM core in Node is @sightline/playwright's (packages/playwright/lib/core-node.mjs); the tests import it from here.
export { core } from '../../packages/playwright/lib/core-node.mjs';
