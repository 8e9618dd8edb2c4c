// @sightline/playwright: Playwright Test with Sightline (README: "Playwright Test fixture").
//
//   import { test, expect } from '@sightline/playwright';
//   test('adds a todo', async ({ page, aiInput, aiKeyboardPress, aiAssert }) => { … });
//
// With a Playwright Test of your own, one extend: `base.extend(sightlineFixtures(base))`
// (@sightline/playwright/fixtures). The bridge client: @sightline/playwright/bridge.
import { test as base, expect } from '@playwright/test';
import { sightlineFixtures } from './fixtures.mjs';

export { expect };
export { SightlineError, runError, runFlowOnPage, sightlineFixtures } from './fixtures.mjs';
export const test = base.extend(sightlineFixtures(base));
