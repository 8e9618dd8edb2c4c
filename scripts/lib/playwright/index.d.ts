// Types of @sightline/playwright (index.mjs): Playwright Test's `test` with Sightline's fixtures.
import type { PlaywrightTestArgs, PlaywrightTestOptions, PlaywrightWorkerArgs, PlaywrightWorkerOptions, TestType } from '@playwright/test';
import type { SightlineTestFixtures, SightlineWorkerFixtures } from './fixtures.js';

export { expect } from '@playwright/test';
export * from './fixtures.js';

export const test: TestType<PlaywrightTestArgs & PlaywrightTestOptions & SightlineTestFixtures, PlaywrightWorkerArgs & PlaywrightWorkerOptions & SightlineWorkerFixtures>;
