//! Token figures: estimated from characters unless the API reported them,
//! and every figure says which (SPEC "tokens", R1.6).

use serde::Serialize;

use crate::message::{Block, Content, Message, ToolResultContent};

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
}

impl Default for Estimator {
    fn default() -> Self {
        Estimator {
            chars_per_token: 4,
            image_tokens: 1_600,
        }
    }
}

impl Estimator {
    /// `ceil(chars / chars_per_token)` for one piece of text.
    pub fn text(&self, text: &str) -> u64 {
        let chars = text.chars().count() as u64;
        chars.div_ceil(self.chars_per_token.max(1))
    }

    /// `ceil(chars / chars_per_token)` for a value's compact JSON text,
    /// counted as it is written, never built.
    pub fn json<T: Serialize + ?Sized>(&self, value: &T) -> u64 {
        let mut chars = CharCount(0);
        // Writing JSON into a counter fails only if serialising fails,
        // which a `Value` or its map never does.
        let _ = serde_json::to_writer(&mut chars, value);
        chars.0.div_ceil(self.chars_per_token.max(1))
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
            Block::Other { extra, .. } => self.json(extra),
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

    /// The estimate for a whole message's content.
    pub fn message(&self, message: &Message) -> u64 {
        match &message.content {
            Content::Text(text) => self.text(text),
            Content::Blocks(blocks) => blocks.iter().map(|b| self.block(b)).sum(),
        }
    }
}

/// Counts the Unicode scalar values of UTF-8 written to it (bytes that do
/// not continue a character).
struct CharCount(u64);

impl std::io::Write for CharCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
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
    fn json_is_counted_as_its_text_without_building_it() {
        let e = Estimator::default();
        let v = json!({"path": "日本語/é.rs", "n": [1, 2.5, null], "emoji": "😀", "q": "a\"b\n"});
        assert_eq!(e.json(&v), e.text(&v.to_string()));
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
