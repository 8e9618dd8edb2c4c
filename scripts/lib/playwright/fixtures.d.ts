// Types of @sightline/playwright/fixtures (fixtures.mjs): the fixtures for one `extend`.
import type { BrowserContext, Fixtures, Page, PlaywrightTestArgs, PlaywrightTestOptions, PlaywrightWorkerArgs, PlaywrightWorkerOptions, TestType, Worker } from '@playwright/test';

/** A model's settings (README: "Configure a model"). */
export interface SightlineModel {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** How the model answers: `generic`, `qwen-vl`, `ui-tars`, `doubao-vision`, `gemini`, … */
  family?: string;
  /** `custom` (OpenAI-compatible) or `anthropic` (its Messages API). */
  provider?: string;
}

/** The browser the fixture launches, over the project's `use` settings. */
export interface SightlineBrowserOptions {
  /** The Chromium to run (default: $CHROMIUM_PATH, else Playwright's own when installed, else Debian's or Homebrew's). Not branded Chrome: it ignores --load-extension. */
  executablePath?: string;
  /** The built extension's folder (default: $SIGHTLINE_EXTENSION_PATH, else the one the package carries). */
  extensionPath?: string;
  headless?: boolean;
  /** The window's page area (default: the project's `viewport`). */
  viewport?: { width: number; height: number };
  deviceScaleFactor?: number;
  /** The browser's interface language, e.g. "zh-CN". */
  lang?: string;
}

/** A locate: the element's description, or Midscene's locate object. */
export type Locate = string | { prompt: string; deepThink?: boolean; cacheable?: boolean; xpath?: string };
export type InputMode = 'replace' | 'append' | 'clear';
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';
export interface ScrollParam {
  direction?: ScrollDirection;
  /** `once` (`singleAction`), or to an edge: `untilBottom`, `untilTop`, `untilLeft`, `untilRight` (`scrollToBottom`, …). */
  scrollType?: string;
  distance?: number;
}

/** A finished run as `self.sightline` gives it (its steps, status, error, result). */
export interface SightlineRun {
  id: string;
  status: 'succeeded' | 'unconfirmed' | 'failed' | 'stopped' | 'running';
  error?: { code: string; message: string };
  result?: unknown;
  steps: Array<Record<string, unknown>>;
  [key: string]: unknown;
}

/** A Sightline run that did not succeed: `code` is its stable error code (README: error codes). */
export class SightlineError extends Error {
  code: string;
  run: SightlineRun;
}

/** The error a finished run stands for, or null when it succeeded. */
export function runError(run: SightlineRun): SightlineError | null;

/** The test page's Sightline. */
export interface SightlineHandle {
  sw: Worker;
  extensionId: string;
  context: BrowserContext;
  tabId(): Promise<number>;
}

export interface SightlineOptions {
  sightlineBrowser: SightlineBrowserOptions;
  sightlineModel: SightlineModel | null;
  sightlinePlanner: SightlineModel | null;
  sightlineRunOptions: Record<string, unknown>;
  /** True: a worker's tests share what their sites stored (cookies, storage), in order (a batch index's `shareBrowserContext`). */
  sightlineShareContext: boolean;
}

export interface SightlineCalls {
  sightline: SightlineHandle;
  ai(prompt: string): Promise<unknown>;
  aiAct(prompt: string): Promise<unknown>;
  aiTap(locate: Locate, opt?: object): Promise<unknown>;
  aiDoubleClick(locate: Locate, opt?: object): Promise<unknown>;
  aiRightClick(locate: Locate, opt?: object): Promise<unknown>;
  aiHover(locate: Locate, opt?: object): Promise<unknown>;
  aiLocate(locate: Locate, opt?: object): Promise<unknown>;
  aiInput: {
    /** Midscene's order: the field, then `{value, mode}`. */
    (locate: Locate, opt: { value: string | number; mode?: InputMode }): Promise<unknown>;
    /** Midscene's older order: the value, then the field. */
    (value: string | number, locate: Locate, opt?: { mode?: InputMode }): Promise<unknown>;
  };
  aiKeyboardPress: {
    (locate: Locate | undefined, opt: { keyName: string }): Promise<unknown>;
    (key: string, locate?: Locate): Promise<unknown>;
  };
  aiScroll: {
    (locate: Locate | undefined | null, opt: ScrollParam): Promise<unknown>;
    (param: ScrollParam, locate?: Locate): Promise<unknown>;
  };
  aiQuery<T = unknown>(demand: string | Record<string, string>): Promise<T>;
  aiBoolean(question: string): Promise<boolean>;
  aiNumber(question: string): Promise<number>;
  aiString(question: string): Promise<string>;
  aiAsk(question: string): Promise<string>;
  /** Throws a SightlineError (`assertion_failed`) when it does not hold; `errorMessage` leads its message. */
  aiAssert(assertion: string, errorMessage?: string): Promise<unknown>;
  aiWaitFor(assertion: string, opt?: { timeoutMs?: number; checkIntervalMs?: number }): Promise<unknown>;
  /** A flow file's text run on the page as one run; resolves to its named answers. */
  runYaml(yaml: string): Promise<{ result: Record<string, unknown> }>;
}

/** Sightline's test fixtures (its calls and its test-scoped options), and its worker option. */
export type SightlineTestFixtures = SightlineCalls & Omit<SightlineOptions, 'sightlineBrowser'>;
export type SightlineWorkerFixtures = Pick<SightlineOptions, 'sightlineBrowser'>;

/** The fixtures for `base.extend(sightlineFixtures(base))`. */
export function sightlineFixtures(base: TestType<any, any>): Fixtures<
  SightlineTestFixtures, SightlineWorkerFixtures,
  PlaywrightTestArgs & PlaywrightTestOptions, PlaywrightWorkerArgs & PlaywrightWorkerOptions
>;

/** A flow file (or YAML text) run on the test page, its items as Playwright steps. */
export function runFlowOnPage(
  base: TestType<any, any>,
  deps: { sightline: SightlineHandle; sightlineModel?: SightlineModel | null; sightlinePlanner?: SightlineModel | null; sightlineRunOptions?: Record<string, unknown>; page: Page },
  flow: { yaml?: string; file?: string; uploadDir?: string; live?: boolean },
): Promise<SightlineRun>;
