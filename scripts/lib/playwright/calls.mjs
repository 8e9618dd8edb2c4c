// Midscene's call forms, read once for the fixture (fixtures.mjs) and the bridge client
// (bridge.mjs): each call's arguments as the flow item a flow file would write for it. Both take
// the same order, Midscene's current one, and its older one where the two cannot be confused:
//   aiInput(locate, {value, mode})           or the older aiInput(value, locate)
//   aiKeyboardPress(locate, {keyName})       or the older aiKeyboardPress(key, locate?)
//   aiScroll(locate, {direction, scrollType, distance})  or aiScroll({direction, …}, locate?)
// The fixture hands the item to the extension's core, which reads it as it reads a flow file.

/** True for a locate object (Midscene's `{prompt, …}`; the bridge's `{element}` from a snapshot). */
const isLocate = (v) => v != null && typeof v === 'object' && ('prompt' in v || 'element' in v);
/** A locate: words, a locate object, or (the bridge) an element number from `snapshot()`. */
const isTarget = (v) => typeof v === 'string' || typeof v === 'number' || isLocate(v);

/** The item each call stands for, from its arguments. */
export const ITEMS = {
  aiTap: (locate, opt) => ({ aiTap: locate, ...opt }),
  aiDoubleClick: (locate, opt) => ({ aiDoubleClick: locate, ...opt }),
  aiRightClick: (locate, opt) => ({ aiRightClick: locate, ...opt }),
  aiHover: (locate, opt) => ({ aiHover: locate, ...opt }),
  aiLocate: (locate, opt) => ({ aiLocate: locate, ...opt }),
  // A locate in the second place is the older order: the first is the value.
  aiInput: (a, b, opt) => (isTarget(b) ? { aiInput: String(a), locate: b, ...opt } : { aiInput: a, ...b }),
  aiKeyboardPress: (a, b, opt) => (b && typeof b === 'object' && 'keyName' in b ? { aiKeyboardPress: b.keyName, ...(a != null ? { locate: a } : {}) } : { aiKeyboardPress: a, ...(b != null ? { locate: b } : {}), ...opt }),
  aiScroll: (a, b, opt) => (a && typeof a === 'object' && !isLocate(a) ? { aiScroll: b ?? a.locate ?? null, ...a, ...opt } : { aiScroll: a ?? null, ...b }),
  aiQuery: (demand) => ({ aiQuery: demand }),
  aiBoolean: (question) => ({ aiBoolean: question }),
  aiNumber: (question) => ({ aiNumber: question }),
  aiString: (question) => ({ aiString: question }),
  aiAsk: (question) => ({ aiAsk: question }),
  aiAssert: (assertion) => ({ aiAssert: assertion }),
  aiWaitFor: (assertion, opt = {}) => ({ aiWaitFor: assertion, ...(opt.timeoutMs ? { timeout: opt.timeoutMs } : {}) }),
};

/** The element an item acts on, and its value, whichever order the call was written in. */
export function inputOf(item) {
  return 'locate' in item ? { locate: item.locate, value: item.aiInput, mode: item.mode } : { locate: item.aiInput, value: item.value, mode: item.mode };
}

/** A prompt's words: a string as it is, a locate object's `prompt`. */
export const promptText = (p) => (p == null ? '' : typeof p === 'string' ? p : p.prompt ?? JSON.stringify(p));
