#!/usr/bin/env node
// Draws Sightline's icon (an eye on a blue rounded square: the page seen, then acted on) at the
// sizes Chrome asks for: 16 and 32 (toolbar), 48 (extensions page), 128 (Web Store, install).
// Reproducible: the same shapes, sampled 8×8 per pixel, written as PNG with Node's zlib only.
// Run: node scripts/make-icons.mjs  → extension/icons/icon-{16,32,48,128}.png
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const SIZES = [16, 32, 48, 128];
const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'extension', 'icons');
const SAMPLES = 8;

const BLUE = [29, 78, 216];
const WHITE = [255, 255, 255];
const NIGHT = [11, 27, 77];

// The shapes in unit coordinates (0..1), front last: each is [inside(x, y), colour].
const inRoundedSquare = (x, y) => {
  const r = 0.22;
  const dx = Math.max(r - x, 0, x - (1 - r));
  const dy = Math.max(r - y, 0, y - (1 - r));
  return dx * dx + dy * dy <= r * r;
};
// The eye: the lens two circles share. Half-width 0.38, half-height 0.22 → radius 0.4382,
// centres 0.2182 above and below the middle.
const LENS_R = 0.4382;
const LENS_C = 0.2182;
const inCircle = (cx, cy, r) => (x, y) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
const inEye = (x, y) => inCircle(0.5, 0.5 - LENS_C, LENS_R)(x, y) && inCircle(0.5, 0.5 + LENS_C, LENS_R)(x, y);
const SHAPES = [
  [inRoundedSquare, BLUE],
  [inEye, WHITE],
  [inCircle(0.5, 0.5, 0.155), BLUE],
  [inCircle(0.5, 0.5, 0.075), NIGHT],
  [inCircle(0.548, 0.452, 0.032), WHITE],
];

/** RGBA pixels of the icon at `size`: each pixel the average of its samples (transparent outside). */
function draw(size) {
  const pixels = Buffer.alloc(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const x = (px + (sx + 0.5) / SAMPLES) / size;
          const y = (py + (sy + 0.5) / SAMPLES) / size;
          let colour = null;
          for (const [inside, c] of SHAPES) if (inside(x, y)) colour = c;
          if (!colour) continue;
          r += colour[0];
          g += colour[1];
          b += colour[2];
          a += 1;
        }
      }
      const i = (py * size + px) * 4;
      // Colour averaged over the covered samples (no dark fringe), coverage as alpha.
      if (a) [pixels[i], pixels[i + 1], pixels[i + 2]] = [r / a, g / a, b / a].map(Math.round);
      pixels[i + 3] = Math.round((255 * a) / SAMPLES ** 2);
    }
  }
  return pixels;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An 8-bit RGBA PNG. */
export function png(size, pixels) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) pixels.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

mkdirSync(OUT, { recursive: true });
for (const size of SIZES) {
  const file = path.join(OUT, `icon-${size}.png`);
  writeFileSync(file, png(size, draw(size)));
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
