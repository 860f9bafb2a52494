//! Token figures: estimated from characters unless the API reported them,
//! and every figure says which (SPEC "tokens", R1.6).

use crate::message::{Block, Content, Extra, Json, Message, ToolResultContent};
use serde::Serialize;

/// How text becomes an estimated token count. Both numbers are settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Estimator {
    /// Characters (Unicode scalar values) per token; the estimate rounds up.
    /// Default 4 (SPEC "tokens").
    pub chars_per_token: u64,
    /// Tokens counted for an image block, whose size the engine cannot see.
    /// Default 1,600 (about a 1,200 × 1,000 px image in Anthropic's
    /// published `width × height / 750` rule).
    pub image_tokens: u64,
    /// Output tokens a reply's first `tool_use` block costs beyond its name
    /// and input (the call's framing), for estimating a reply's output
    /// (R1.6). Default 87: over the 639 responses of the calibration set
    /// (`../shared/fixtures/sessions/`) whose final `output_tokens` is
    /// recorded, replies with one, two and three calls exceed their
    /// content's estimate by a median of 87, 115 and 154 tokens (10th
    /// percentile 59, 100, 138); text-only replies by −5.
    pub tool_use_output_tokens: u64,
    /// … and each further `tool_use` block of the same reply (default 35,
    /// from the same medians).
    pub more_tool_use_output_tokens: u64,
    /// Characters of a thinking block's `signature` per output token of
    /// its thinking, beyond [`Estimator::SIGNATURE_BASE_CHARS`] (default
    /// 5). The text a session file shows is a summary of the thinking the
    /// reply paid for; the signature grows with the whole: over the
    /// calibration set's 157 recorded thinking replies, their output beyond
    /// the rest of the content is about a fifth of the signature's length
    /// (0.16 – 0.22 from 1,000 signature characters up).
    pub signature_chars_per_token: u64,
}

impl Default for Estimator {
    fn default() -> Self {
        Estimator {
            chars_per_token: 4,
            image_tokens: 1_600,
            tool_use_output_tokens: 87,
            more_tool_use_output_tokens: 35,
            signature_chars_per_token: 5,
        }
    }
}

impl Estimator {
    /// `ceil(chars / chars_per_token)` for one piece of text.
    pub fn text(&self, text: &str) -> u64 {
        let chars = char_count(text) as u64;
        chars.div_ceil(self.chars_per_token.max(1))
    }

    /// `ceil(chars / chars_per_token)` for a value's JSON text (kept as it
    /// came, so counted as it will be sent).
    pub fn json(&self, value: &Json) -> u64 {
        self.text(value.text())
    }

    /// [`Estimator::json`] for the object these fields make.
    pub fn json_object(&self, fields: &Extra) -> u64 {
        object_chars(fields).div_ceil(self.chars_per_token.max(1))
    }

    /// The estimate for one block: its text (a `tool_use` counts its name
    /// and its input as JSON), a fixed figure for images, and the JSON of
    /// kinds the engine does not know.
    pub fn block(&self, block: &Block) -> u64 {
        match block {
            Block::Text { text, .. } => self.text(text),
            Block::Thinking { thinking, .. } => self.text(thinking),
            Block::ToolUse { name, input, .. } => self.text(name) + self.json(input),
            Block::ToolResult { content, .. } => self.tool_result(content),
            Block::Image { .. } => self.image_tokens,
            Block::Other { extra, .. } => self.json_object(extra),
        }
    }

    /// The estimate for a `tool_result`'s content.
    pub fn tool_result(&self, content: &ToolResultContent) -> u64 {
        match content {
            ToolResultContent::Absent => 0,
            ToolResultContent::Text(text) => self.text(text),
            ToolResultContent::Blocks(blocks) => blocks.iter().map(|b| self.block(b)).sum(),
        }
    }

    /// The length of a thinking signature that says nothing of the
    /// thinking's size (the shortest ones seen are about 250 characters).
    pub const SIGNATURE_BASE_CHARS: u64 = 256;

    /// The output tokens a reply most likely cost (R1.6: what a recorded
    /// streaming snapshot of `output_tokens` stands in for): its content's
    /// estimate, plus the `tool_use` blocks' framing, with a thinking
    /// block counted at the larger of its text's estimate and its
    /// signature's (see the two settings).
    pub fn reply_output(&self, message: &Message) -> u64 {
        let Content::Blocks(blocks) = &message.content else {
            return self.message(message);
        };
        let mut calls = 0u64;
        blocks
            .iter()
            .map(|block| match block {
                Block::ToolUse { .. } => {
                    calls += 1;
                    let framing = if calls == 1 {
                        self.tool_use_output_tokens
                    } else {
                        self.more_tool_use_output_tokens
                    };
                    self.block(block) + framing
                }
                Block::Thinking { thinking, extra } => {
                    let signature = extra
                        .str_field("signature")
                        .map_or(0, |s| char_count(&s) as u64)
                        .saturating_sub(Self::SIGNATURE_BASE_CHARS);
                    self.text(thinking)
                        .max(signature / self.signature_chars_per_token.max(1))
                }
                other => self.block(other),
            })
            .sum()
    }

    /// The estimate for a whole message's content.
    pub fn message(&self, message: &Message) -> u64 {
        match &message.content {
            Content::Text(text) => self.text(text),
            Content::Blocks(blocks) => blocks.iter().map(|b| self.block(b)).sum(),
        }
    }
}

/// Characters of the object these fields make: `{` `}`, a comma between
/// entries, each key as a JSON string, a colon, each value's text.
fn object_chars(fields: &Extra) -> u64 {
    2 + fields.len().saturating_sub(1) as u64
        + fields
            .iter()
            .map(|(k, v)| string_chars(k) + 1 + char_count(v.text()) as u64)
            .sum::<u64>()
}

/// The number of characters in `s` (`s.chars().count()`): every byte but
/// a UTF-8 continuation byte (`0b10xx_xxxx`) starts one. Counting is most
/// of estimating a long history's tokens, so eight bytes at a time, written
/// so that even the size-optimised wasm build makes it one load and a few
/// operations per word (std's own count is slow there).
pub fn char_count(s: &str) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut rest = s.as_bytes();
    let mut continuation = 0usize;
    while let Some((word, tail)) = rest.split_first_chunk::<8>() {
        let w = u64::from_le_bytes(*word);
        // Bit 7 set and bit 6 clear, in each byte.
        continuation += (w & !(w << 1) & HIGH).count_ones() as usize;
        rest = tail;
    }
    for &b in rest {
        continuation += usize::from(b & 0xC0 == 0x80);
    }
    s.len() - continuation
}

/// A string's JSON text: its quotes, its characters, and what escaping
/// adds (`\"`, `\\` and the short control escapes one character each,
/// other control characters `\u00XX`, five).
fn string_chars(s: &str) -> u64 {
    let mut chars = 2u64;
    for &b in s.as_bytes() {
        // Bytes that start a character (not UTF-8 continuation bytes).
        chars += u64::from((b as i8) >= -0x40);
        if b < 0x20 || b == b'"' || b == b'\\' {
            chars += match b {
                b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 1,
                _ => 5,
            };
        }
    }
    chars
}

/// Where a token figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Basis {
    /// Estimated from characters.
    Estimated,
    /// Reported by the API (`usage`).
    Reported,
    /// The last reported usage plus an estimate of what was appended since
    /// (R1.6).
    ReportedPlusEstimate,
}

/// A token figure and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenFigure {
    /// The number of tokens.
    pub tokens: u64,
    /// Whether it was estimated, reported, or both.
    pub basis: Basis,
}

impl TokenFigure {
    /// An estimated figure.
    pub fn estimated(tokens: u64) -> Self {
        TokenFigure {
            tokens,
            basis: Basis::Estimated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    proptest::proptest! {
        #[test]
        fn char_count_is_chars_count(s in "\\PC*", pad in 0usize..9) {
            let s = format!("{}{s}é😀", "x".repeat(pad));
            proptest::prop_assert_eq!(super::char_count(&s), s.chars().count());
        }
    }

    #[test]
    fn characters_are_unicode_scalars_rounded_up() {
        let e = Estimator::default();
        assert_eq!(e.text(""), 0);
        assert_eq!(e.text("abcd"), 1);
        assert_eq!(e.text("abcde"), 2);
        // Four scalars, twelve bytes: one token.
        assert_eq!(e.text("日本語!"), 1);
        // An emoji is one scalar, two UTF-16 units.
        assert_eq!(e.text("😀😀😀😀😀"), 2);
    }

    #[test]
    fn unknown_fields_are_counted_as_the_object_they_make() {
        let e = Estimator::default();
        let v = json!({"path": "日本語/é.rs", "n": [1, -2.5, null, 1e300, u64::MAX, i64::MIN], "emoji": "😀",
            "q": "a\"b\n\\\u{1}\u{8}\u{c}\r\t\u{7f}", "": {}, "e": [], "o": {"t": true, "f": false, "x": [[]]}});
        let serde_json::Value::Object(map) = &v else {
            unreachable!()
        };
        let fields: Extra = map
            .iter()
            .map(|(k, v)| (k.clone(), Json::from_value(v)))
            .collect();
        // Exact, not only after rounding.
        assert_eq!(object_chars(&fields), v.to_string().chars().count() as u64);
        assert_eq!(e.json_object(&fields), e.text(&v.to_string()));
        for n in 0..40u32 {
            let s: String = (0..n)
                .map(|i| char::from_u32(i * 7 % 130).unwrap_or('é'))
                .collect();
            let fields: Extra = [(s.clone(), Json::from_value(&json!([s.clone(), n])))]
                .into_iter()
                .collect();
            assert_eq!(
                object_chars(&fields),
                json!({ s.clone(): [s, n] }).to_string().chars().count() as u64
            );
        }
        assert_eq!(object_chars(&Extra::new()), 2);
    }

    #[test]
    fn blocks_count_their_text_and_images_a_fixed_figure() {
        let e = Estimator::default();
        let m: Message = serde_json::from_value(json!({
            "uuid": "a", "role": "assistant", "content": [
                {"type": "text", "text": "12345678"},
                {"type": "tool_use", "id": "t", "name": "Read", "input": {"p": 1}},
                {"type": "image", "source": {"type": "base64", "data": "AAAA"}}
            ]
        }))
        .unwrap();
        // 2 + (1 + ceil(7/4)=2) + 1,600
        assert_eq!(e.message(&m), 2 + 3 + 1_600);
    }
}
