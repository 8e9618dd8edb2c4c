// The WASM core in Node is shared with the scripts; the tests import it from here.
export { core } from '../../scripts/lib/core-node.mjs';
