// Reads the numbers on an image's marker labels, independently of the code that drew them:
// decodes the image in a page and matches the 5×7 digit bitmaps (at whole-pixel scale) of the
// marker font, ink on a flat label colour. Returns [{number, x, y, width, height}] in image px.

const DIGITS = [
  ['01110', '10001', '10011', '10101', '11001', '10001', '01110'],
  ['00100', '01100', '00100', '00100', '00100', '00100', '01110'],
  ['01110', '10001', '00001', '00010', '00100', '01000', '11111'],
  ['11111', '00010', '00100', '00010', '00001', '10001', '01110'],
  ['00010', '00110', '01010', '10010', '11111', '00010', '00010'],
  ['11111', '10000', '11110', '00001', '00001', '10001', '01110'],
  ['00110', '01000', '10000', '11110', '10001', '10001', '01110'],
  ['11111', '00001', '00010', '00100', '01000', '01000', '01000'],
  ['01110', '10001', '10001', '01110', '10001', '10001', '01110'],
  ['01110', '10001', '10001', '01111', '00001', '00010', '01100'],
];

export async function readMarkerLabels(page, dataUrl, scale) {
  return page.evaluate(async ({ dataUrl, scale: k, DIGITS }) => {
    const img = new Image();
    img.src = dataUrl;
    await img.decode();
    const canvas = new OffscreenCanvas(img.naturalWidth, img.naturalHeight);
    const g = canvas.getContext('2d');
    g.drawImage(img, 0, 0);
    const { data, width, height } = g.getImageData(0, 0, img.naturalWidth, img.naturalHeight);
    const at = (x, y) => (y * width + x) * 4;
    const same = (i, j) => data[i] === data[j] && data[i + 1] === data[j + 1] && data[i + 2] === data[j + 2];
    const isInk = (i) => (data[i] === 255 && data[i + 1] === 255 && data[i + 2] === 255) || (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 0);
    const found = [];
    const gw = 5 * k, gh = 7 * k;
    for (let y = k; y + gh + k <= height; y++) {
      for (let x = k; x + gw + k <= width; x++) {
        // A label's margin: the pixel up-left of a glyph is label colour, not ink.
        const bg = at(x - k, y - k);
        if (isInk(bg)) continue;
        let ink = -1;
        for (let d = 0; d < 10; d++) {
          let ok = true;
          for (let r = 0; r < 7 && ok; r++) {
            for (let c = 0; c < 5 && ok; c++) {
              // Every pixel of the k×k cell must agree.
              for (let dy = 0; dy < k && ok; dy++) {
                for (let dx = 0; dx < k && ok; dx++) {
                  const p = at(x + c * k + dx, y + r * k + dy);
                  if (DIGITS[d][r][c] === '1') {
                    if (ink === -1) { if (!isInk(p)) ok = false; else ink = p; } else if (!same(p, ink)) ok = false;
                  } else if (!same(p, bg)) ok = false;
                }
              }
            }
          }
          if (ok) { found.push({ d, x, y }); break; }
          ink = -1;
        }
      }
    }
    // Digits of one label sit side by side, (5 + 1) × k apart, on one row.
    found.sort((a, b) => a.y - b.y || a.x - b.x);
    const used = new Set();
    const labels = [];
    for (let i = 0; i < found.length; i++) {
      if (used.has(i)) continue;
      let text = String(found[i].d);
      let last = found[i];
      used.add(i);
      for (;;) {
        const j = found.findIndex((f, n) => !used.has(n) && f.y === last.y && f.x === last.x + 6 * k);
        if (j < 0) break;
        used.add(j);
        text += found[j].d;
        last = found[j];
      }
      // A digit that is also the tail of an earlier one was consumed above; a lone leading
      // digit further right belongs to a different label.
      labels.push({ number: Number(text), x: found[i].x - k, y: found[i].y - k, width: last.x + gw + k - (found[i].x - k), height: gh + 2 * k });
    }
    return labels;
  }, { dataUrl, scale, DIGITS });
}
