//! Lone surrogate escapes (`\ud83d` with no low half after it): Claude Code
//! writes them when a tool output is cut in the middle of an emoji, and
//! JSON parsers refuse the line. They are rewritten to U+FFFD so the record
//! is kept, and counted so the import can report them. A request body read
//! by `api::body` gets the same repair. The character is written as itself
//! (its UTF-8 bytes), not as a `\ufffd` escape: JSON kept as text (a tool's
//! input) then reads the same as `JSON.stringify` writes it, so a message
//! appended from JS and the same message resumed from its record (which
//! crosses JS again) are the same text and count the same.

use std::borrow::Cow;

/// `line` with every lone surrogate escape replaced by U+FFFD, and how
/// many there were; borrowed unchanged when there were none.
pub fn replace_lone_surrogates(line: &[u8]) -> (Cow<'_, [u8]>, usize) {
    let mut out: Option<Vec<u8>> = None;
    let mut count = 0;
    let mut copied = 0;
    let mut i = 0;
    while i < line.len() {
        // Straight to the next backslash, eight bytes at a time.
        match line.get(i..).and_then(|rest| super::scan::find_byte(rest, b'\\')) {
            Some(at) => i += at,
            None => break,
        }
        let Some(unit) = escape_at(line, i) else {
            // `\"`, `\\`, `\n`…: the escaped byte is not a backslash to read.
            i += 2;
            continue;
        };
        let lone = match unit {
            0xD800..=0xDBFF => match escape_at(line, i + 6) {
                Some(0xDC00..=0xDFFF) => {
                    i += 12;
                    continue;
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
        i += 6;
    }
    match out {
        Some(mut buf) => {
            buf.extend_from_slice(&line[copied..]);
            (Cow::Owned(buf), count)
        }
        None => (Cow::Borrowed(line), 0),
    }
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
    }
}
