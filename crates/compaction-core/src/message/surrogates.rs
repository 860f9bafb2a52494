//! Lone surrogate escapes (`\ud83d` with no low half after it): Claude Code
//! writes them when a tool output is cut in the middle of an emoji, and
//! JSON parsers refuse the line. They are rewritten to U+FFFD so the record
//! is kept, and counted so the import can report them. A request body read
//! by `api::body` gets the same repair. The character is written as itself
//! (its UTF-8 bytes), not as a `\ufffd` escape: JSON kept as text (a tool's
//! input) then reads the same as `JSON.stringify` writes it, so a message
//! appended from JS and the same message resumed from its record (which
//! crosses JS again) are the same text and count the same.
//!
//! The text is not walked escape by escape: a word-at-a-time scan
//! ([`super::scan::find_unicode_escape`]) jumps straight to the next `\u`,
//! which real text rarely has (JSON writers escape control characters and
//! lone surrogates only; agent data has a backslash every few dozen bytes,
//! each of which stopped the old walk). Only there is the escape read: a
//! backslash that is itself escaped (an odd run of backslashes before it)
//! starts none.

use std::borrow::Cow;

/// `line` with every lone surrogate escape replaced by U+FFFD, and how
/// many there were; borrowed unchanged when there were none.
pub fn replace_lone_surrogates(line: &[u8]) -> (Cow<'_, [u8]>, usize) {
    let mut out: Option<Vec<u8>> = None;
    let mut count = 0;
    let mut copied = 0;
    // The low half of a pair already read with its high half.
    let mut paired_to = 0;
    let mut from = 0;
    while let Some(at) = line.get(from..).and_then(super::scan::find_unicode_escape) {
        let i = from + at;
        from = i + 2;
        if i < paired_to || !starts_escape(line, i) {
            continue;
        }
        let Some(unit) = escape_at(line, i) else {
            continue;
        };
        let lone = match unit {
            0xD800..=0xDBFF => match escape_at(line, i + 6) {
                Some(0xDC00..=0xDFFF) => {
                    paired_to = i + 12;
                    false
                }
                _ => true,
            },
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            let buf = out.get_or_insert_with(|| Vec::with_capacity(line.len()));
            buf.extend_from_slice(&line[copied..i]);
            buf.extend_from_slice("\u{fffd}".as_bytes());
            count += 1;
            copied = i + 6;
        }
    }
    match out {
        Some(mut buf) => {
            buf.extend_from_slice(&line[copied..]);
            (Cow::Owned(buf), count)
        }
        None => (Cow::Borrowed(line), 0),
    }
}

/// Whether the backslash at `at` starts an escape: an even number of
/// backslashes (pairs, each an escaped backslash) right before it.
fn starts_escape(line: &[u8], at: usize) -> bool {
    let before = line.get(..at).unwrap_or_default();
    before.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0
}

/// The code unit of a `\uXXXX` escape starting at `at`, if there is one.
fn escape_at(line: &[u8], at: usize) -> Option<u32> {
    let hex = line.get(at..at.checked_add(6)?)?;
    if hex[0] != b'\\' || hex[1] != b'u' {
        return None;
    }
    let text = std::str::from_utf8(&hex[2..]).ok()?;
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::replace_lone_surrogates;

    fn fixed(line: &str) -> (String, usize) {
        let (out, n) = replace_lone_surrogates(line.as_bytes());
        (String::from_utf8(out.into_owned()).unwrap_or_default(), n)
    }

    #[test]
    fn only_lone_halves_are_replaced() {
        assert_eq!(fixed(r#"{"a":"x\ud83d"}"#), ("{\"a\":\"x\u{fffd}\"}".into(), 1));
        assert_eq!(
            fixed(r#"{"a":"\ude00y\ud83d\ude00"}"#),
            ("{\"a\":\"\u{fffd}y\\ud83d\\ude00\"}".into(), 1)
        );
        assert_eq!(
            fixed(r#"{"a":"\ud83d\ud83d\ude00"}"#),
            ("{\"a\":\"\u{fffd}\\ud83d\\ude00\"}".into(), 1)
        );
        // An escaped backslash before `ud83d` is text, not an escape.
        assert_eq!(fixed(r#"{"a":"\\ud83d"}"#), (r#"{"a":"\\ud83d"}"#.into(), 0));
        assert_eq!(
            fixed(r#"{"a":"\u00e9\ud83d"#),
            ("{\"a\":\"\\u00e9\u{fffd}".into(), 1)
        );
        assert_eq!(fixed(r"\ud8"), (r"\ud8".into(), 0));
        assert_eq!(
            fixed(r#"{"a":"\\\ud83d\\\\ud83d"}"#),
            ("{\"a\":\"\\\\\u{fffd}\\\\\\\\ud83d\"}".into(), 1)
        );
    }

    /// The walk this scan replaced: every backslash in turn, its escape
    /// skipped (2 bytes, 6 for `\uXXXX`, 12 for a pair).
    fn walked(line: &[u8]) -> (Vec<u8>, usize) {
        let (mut out, mut count, mut i) = (Vec::new(), 0, 0);
        while i < line.len() {
            if line[i] != b'\\' {
                out.push(line[i]);
                i += 1;
                continue;
            }
            let Some(unit) = super::escape_at(line, i) else {
                out.extend_from_slice(&line[i..(i + 2).min(line.len())]);
                i += 2;
                continue;
            };
            let lone = match unit {
                0xD800..=0xDBFF => match super::escape_at(line, i + 6) {
                    Some(0xDC00..=0xDFFF) => {
                        out.extend_from_slice(&line[i..i + 12]);
                        i += 12;
                        continue;
                    }
                    _ => true,
                },
                0xDC00..=0xDFFF => true,
                _ => false,
            };
            out.extend_from_slice(if lone {
                "\u{fffd}".as_bytes()
            } else {
                &line[i..i + 6]
            });
            count += usize::from(lone);
            i += 6;
        }
        (out, count)
    }

    #[test]
    fn the_scan_agrees_with_a_walk_over_every_backslash() {
        // Every string of up to 5 of these pieces, and a pseudo-random
        // sample of longer ones: runs of backslashes, halves, cut escapes.
        let pieces: [&[u8]; 10] = [
            b"\\", b"u", b"\\ud83d", b"\\ude00", b"\\u00e9", b"\\uD83D", b"d8", b"\"", b"ab", b"\\u+12",
        ];
        let check = |line: &[u8]| {
            let (out, n) = replace_lone_surrogates(line);
            assert_eq!(
                (out.into_owned(), n),
                walked(line),
                "{:?}",
                String::from_utf8_lossy(line)
            );
        };
        let mut stack = vec![(Vec::new(), 0)];
        while let Some((line, n)) = stack.pop() {
            check(&line);
            if n < 5 {
                for p in pieces {
                    let mut next = line.clone();
                    next.extend_from_slice(p);
                    stack.push((next, n + 1));
                }
            }
        }
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            let mut line = Vec::new();
            for _ in 0..(seed % 40) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                line.extend_from_slice(pieces[(seed % 10) as usize]);
            }
            check(&line);
        }
    }
}
