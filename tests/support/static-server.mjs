// The static server is shared with the scripts; the tests import it from here.
export { startStaticServer } from '../../scripts/lib/static-server.mjs';
