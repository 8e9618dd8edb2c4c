// Types of @sightline/playwright/bridge (bridge.mjs): the bridge client on the MCP SDK.
import type { InputMode, Locate, ScrollParam } from './fixtures.js';

/** An element: words, Midscene's locate object, or a number from `snapshot()` (`12` or `{element: 12}`). */
export type BridgeTarget = Locate | number | { element: number };

/** A progress report of a call, as the run goes. */
export interface BridgeProgress {
  progress: number;
  total?: number;
  message?: string;
  /** The tool whose call this is. */
  tool: string;
}

export interface BridgeOptions {
  /** sightline-mcp's /mcp address (default http://127.0.0.1:<port>/mcp). */
  url?: string;
  /** Its port on 127.0.0.1 (default 47231). */
  port?: number;
  /** The pairing token (default: SIGHTLINE_TOKEN, else the file `sightline-mcp --save-token` wrote). */
  token?: string;
  /** How the panel names this script. */
  name?: string;
  /** The longest any call may take (default 10 minutes). */
  timeoutMs?: number;
  onProgress?: (progress: BridgeProgress) => void;
}

export type McpContent = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string } | { type: string; [key: string]: unknown };

/** A tool that ran and failed; `code` is its stable code (`assertion_failed`, `site_not_allowed`, …). */
export class BridgeToolError extends Error {
  tool: string;
  code: string;
}

/** A call the server refused as a request; `code`: Sightline's (`call_invalid`), `rpcCode`: JSON-RPC's. */
export class BridgeRequestError extends Error {
  code: string;
  rpcCode: number;
}

export function tokenFile(env?: Record<string, string | undefined>): string;
export function savedToken(env?: Record<string, string | undefined>): string;

export class SightlineBridge {
  constructor(opts?: BridgeOptions);
  url: string;
  name: string;
  timeoutMs: number;
  onProgress?: (progress: BridgeProgress) => void;
  /** Opens the MCP session; resolves to the server's name and version. */
  connect(): Promise<{ name: string; version: string }>;
  destroy(): Promise<void>;
  call(tool: string, args?: Record<string, unknown>, opts?: { onProgress?: (progress: BridgeProgress) => void }): Promise<McpContent[]>;

  snapshot(): Promise<string>;
  screenshot(opts?: { fullPage?: boolean }): Promise<{ type: 'image'; data: string; mimeType: string } | undefined>;
  tabs(): Promise<string>;
  openTab(url?: string): Promise<string>;
  selectTab(tab: number): Promise<string>;
  closeTab(tab?: number): Promise<string>;
  navigate(url: string): Promise<string>;
  consoleMessages(): Promise<string>;

  ai(instruction: string): Promise<string>;
  aiAct(instruction: string): Promise<string>;
  aiTap(locate: BridgeTarget): Promise<string>;
  aiDoubleClick(locate: BridgeTarget): Promise<string>;
  aiRightClick(locate: BridgeTarget): Promise<string>;
  aiHover(locate: BridgeTarget): Promise<string>;
  aiInput: {
    /** The fixture's (and Midscene's) order: the field, then `{value, mode}`. */
    (locate: BridgeTarget, opt: { value: string | number; mode?: InputMode }): Promise<string>;
    /** Midscene's older order: the value, then the field. */
    (value: string | number, locate: BridgeTarget, opt?: { mode?: InputMode }): Promise<string>;
  };
  aiSelect(locate: BridgeTarget, option: string): Promise<string>;
  aiKeyboardPress: {
    (locate: BridgeTarget | undefined, opt: { keyName: string }): Promise<string>;
    (key: string, locate?: BridgeTarget): Promise<string>;
  };
  aiScroll: {
    (locate: BridgeTarget | undefined | null, opt: ScrollParam): Promise<string>;
    (param: ScrollParam & { toEdge?: boolean; locate?: BridgeTarget }, locate?: BridgeTarget): Promise<string>;
  };
  aiDrag(from: BridgeTarget, to: BridgeTarget): Promise<string>;
  aiUpload(locate: BridgeTarget, files: string | string[]): Promise<string>;
  aiQuery<T = unknown>(demand: string | Record<string, string>): Promise<T>;
  aiBoolean(question: string): Promise<boolean>;
  aiNumber(question: string): Promise<number>;
  /** Resolves to `{pass, reason}`; throws a BridgeToolError when it does not hold. */
  aiAssert(assertion: string): Promise<{ pass: boolean; reason: string }>;
  aiWaitFor(assertion: string, opt?: { timeoutMs?: number }): Promise<unknown>;
  exportRun(format: string, run?: string): Promise<string>;
}
