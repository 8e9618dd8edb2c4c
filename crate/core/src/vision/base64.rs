//! Base64 for screenshots: CDP hands captures over as base64 and models take data URLs.
//! Standard alphabet; decoding also accepts the URL-safe one and ignores whitespace.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const INVALID: u8 = 0xff;

const fn decode_table() -> [u8; 256] {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < 64 {
        t[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    t[b'-' as usize] = 62;
    t[b'_' as usize] = 63;
    t
}
const DECODE: [u8; 256] = decode_table();

/// Fails only where the codec module does (a trap in the worker's second module).
pub fn encode(bytes: &[u8]) -> Result<String, super::VisionError> {
    // In sightline-codec: in the worker, its module built for speed.
    sightline_codec::base64_after("", bytes).map_err(super::VisionError::Encode)
}

/// Decodes base64 text; `None` on a character outside the alphabet or a dangling bit group.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in text.as_bytes() {
        if c == b'=' {
            break;
        }
        if c.is_ascii_whitespace() {
            continue;
        }
        let v = DECODE[c as usize];
        if v == INVALID {
            return None;
        }
        acc = acc << 6 | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    // One leftover character (6 bits) cannot be a whole byte.
    (bits < 6).then_some(out)
}

/// Decodes at most the first `max_bytes` bytes (headers), without touching the rest.
pub fn decode_prefix(text: &str, max_bytes: usize) -> Option<Vec<u8>> {
    let chars = (max_bytes.div_ceil(3) * 4).min(text.len() / 4 * 4);
    let mut bytes = decode(text.get(..chars)?)?;
    bytes.truncate(max_bytes);
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_length() {
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        for n in 0..40 {
            assert_eq!(decode(&encode(&data[..n]).unwrap()).unwrap(), &data[..n], "length {n}");
        }
        assert_eq!(encode(b"Man").unwrap(), "TWFu");
        assert_eq!(encode(b"Ma").unwrap(), "TWE=");
        assert_eq!(decode("TW E=\n").unwrap(), b"Ma");
        assert_eq!(decode("TWF-_w").unwrap(), [77, 97, 126, 255]);
    }

    #[test]
    fn refuses_what_is_not_base64() {
        assert_eq!(decode("TW*u"), None);
        assert_eq!(decode("TWFuT"), None);
        assert_eq!(decode_prefix("TWFuTWFu", 4).unwrap(), b"ManM");
    }
}
