//! Finding one byte in a long line, eight bytes at a time: the importer's
//! newlines; and the lone-surrogate pass's `\u` escapes (a pair of bytes). A byte-at-a-time
//! loop is what a wasm build runs (no SIMD, opt-level "z"), and these two
//! scans read every byte of a session file or a request body.

/// The position of the first `needle` in `bytes`.
pub fn find_byte(bytes: &[u8], needle: u8) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let needles = u64::from_ne_bytes([needle; 8]);
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let word: [u8; 8] = chunk.try_into().unwrap_or_default();
        let x = u64::from_le_bytes(word) ^ needles;
        // The lowest set high bit marks the first zero byte of `x`.
        let found = x.wrapping_sub(ONES) & !x & HIGHS;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == needle)
        .map(|p| at + p)
}

/// The position of the first `\\u` (a backslash then a `u`) in `bytes`,
/// eight pairs at a time: text with a backslash every few dozen bytes
/// (code, paths, escaped quotes) and no `\\u` is crossed without stopping.
pub fn find_unicode_escape(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const SLASHES: u64 = u64::from_ne_bytes([b'\\'; 8]);
    const US: u64 = u64::from_ne_bytes([b'u'; 8]);
    let word = |at: &[u8]| u64::from_le_bytes(at.get(..8).and_then(|w| w.try_into().ok()).unwrap_or([0; 8]));
    let mut at = 0;
    // Each byte of the first word beside the byte after it (a second,
    // unaligned word one byte on): zero where the pair is `\\u`.
    while let Some(nine) = bytes.get(at..at + 9) {
        let pairs = (word(nine) ^ SLASHES) | (word(&nine[1..]) ^ US);
        // The lowest set high bit marks the first zero byte.
        let found = pairs.wrapping_sub(ONES) & !pairs & HIGHS;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = bytes.get(at..).unwrap_or_default();
    rest.windows(2).position(|w| w == b"\\u").map(|p| at + p)
}

#[cfg(test)]
mod tests {
    use super::{find_byte, find_unicode_escape};

    #[test]
    fn find_unicode_escape_agrees_with_a_pair_scan() {
        let fillers = [b'a', b'u', b'\\', 0x5b, 0xdc, 0x00, 0xff, 0x80];
        for len in 0..40 {
            for filler in fillers {
                for at in (0..len).map(Some).chain([None]) {
                    let mut bytes = vec![filler; len];
                    if let Some(at) = at {
                        bytes[at] = b'\\';
                        if at + 1 < len {
                            bytes[at + 1] = b'u';
                        }
                    }
                    let expected = bytes.windows(2).position(|w| w == b"\\u");
                    assert_eq!(find_unicode_escape(&bytes), expected, "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn find_byte_agrees_with_a_byte_scan() {
        // Bytes next to the needles in value (0x09, 0x0b, 0x8a, 0x5b, 0x5d)
        // and high bytes that a carry could confuse.
        let fillers = [b'a', 0x09, 0x0b, 0x8a, 0x5b, 0x5d, 0xff, 0x00, 0x80];
        for needle in [b'\n', b'\\'] {
            for len in 0..40 {
                for filler in fillers {
                    for at in (0..len).map(Some).chain([None]) {
                        let mut bytes = vec![filler; len];
                        if let Some(at) = at {
                            bytes[at] = needle;
                            if at + 1 < len {
                                bytes[at + 1] = needle;
                            }
                        }
                        let expected = bytes.iter().position(|&b| b == needle);
                        assert_eq!(find_byte(&bytes, needle), expected, "{bytes:?}");
                    }
                }
            }
        }
    }
}
