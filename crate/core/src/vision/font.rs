//! A 5×7 bitmap font for marker numbers, drawn at whole-pixel scales: crisp at every DPR and
//! nothing to download. Digits only: labels carry element numbers.

pub const GLYPH_W: u32 = 5;
pub const GLYPH_H: u32 = 7;

/// Rows top to bottom; bit 4 is the leftmost column.
const DIGITS: [[u8; 7]; 10] = [
    [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],
    [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
    [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],
    [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110],
    [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],
    [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],
    [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],
    [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],
    [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],
    [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100],
];

/// Size in pixels of `text` at `scale`, one scaled pixel between glyphs.
pub fn text_size(text: &str, scale: u32) -> (u32, u32) {
    let n = text.chars().filter(char::is_ascii_digit).count() as u32;
    if n == 0 {
        return (0, 0);
    }
    ((n * (GLYPH_W + 1) - 1) * scale, GLYPH_H * scale)
}

/// Calls `dot(x, y, size)` for each lit cell of `text` drawn with its top-left at (x, y).
pub fn for_each_dot(text: &str, x: i64, y: i64, scale: u32, mut dot: impl FnMut(i64, i64, u32)) {
    let s = scale as i64;
    let digits = text.chars().filter_map(|c| c.to_digit(10));
    for (i, d) in digits.enumerate() {
        let left = x + i as i64 * (GLYPH_W as i64 + 1) * s;
        for (row, bits) in DIGITS[d as usize].iter().enumerate() {
            for col in 0..GLYPH_W {
                if bits >> (GLYPH_W - 1 - col) & 1 == 1 {
                    dot(left + col as i64 * s, y + row as i64 * s, scale);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_digit_is_distinct_and_sized() {
        for (a, digit) in DIGITS.iter().enumerate() {
            for other in &DIGITS[a + 1..] {
                assert_ne!(digit, other);
            }
        }
        assert_eq!(text_size("42", 2), (22, 14));
        assert_eq!(text_size("", 2), (0, 0));
        let mut dots = 0;
        for_each_dot("1", 0, 0, 1, |_, _, _| dots += 1);
        assert_eq!(dots, 10);
    }
}
