// CSS point → how each grounding family writes it, for a 1280×800 viewport at DPR 1 (the
// image each family is sent: UI-TARS 1.5 and Qwen2.5-VL get a 1288×812 padded image).
const round = (v) => Math.round(v);
export const nativePoint = {
  'ui-tars-1.5': ([x, y]) => `(${round(x * 1288 / 1280)},${round(y * 812 / 800)})`,
  'ui-tars-1.0': ([x, y]) => `(${round(x / 1280 * 1000)},${round(y / 800 * 1000)})`,
  'doubao-ui-tars': ([x, y]) => `<bbox>${round(x / 1280 * 1000) - 5} ${round(y / 800 * 1000) - 5} ${round(x / 1280 * 1000) + 5} ${round(y / 800 * 1000) + 5}</bbox>`,
  'qwen2.5-vl': ([x, y]) => [round(x), round(y)],
  'qwen3-vl': ([x, y]) => [round(x / 1280 * 1000), round(y / 800 * 1000)],
  gemini: ([x, y]) => [round(y / 800 * 1000), round(x / 1280 * 1000)],
  'mai-ui': ([x, y]) => [round(x / 1280 * 999), round(y / 800 * 999)],
};

export const FAMILIES = ['generic', 'function-calling', 'ui-tars-1.5', 'ui-tars-1.0', 'doubao-ui-tars', 'qwen2.5-vl', 'qwen3-vl', 'gemini', 'mai-ui'];
