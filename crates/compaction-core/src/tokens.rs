//! Token figures: estimated from characters unless the API reported them,
//! and every figure says which (SPEC "tokens", R1.6).

use std::fmt;
use std::sync::Arc;

use crate::message::{Block, Content, Extra, Json, Message, ToolResultContent};
use serde::Serialize;

/// A host's own token counter (R1.6a): a pure function from text to
/// tokens, no I/O. The engine calls it for every piece of text it
/// estimates (a block's text, a tool input's JSON, a summary prompt).
#[derive(Clone)]
pub struct TokenCounter(Arc<dyn Fn(&str) -> u64 + Send + Sync>);

impl TokenCounter {
    /// Wraps a counting function.
    pub fn new(count: impl Fn(&str) -> u64 + Send + Sync + 'static) -> Self {
        TokenCounter(Arc::new(count))
    }

    /// The tokens of `text` by this counter.
    pub fn count(&self, text: &str) -> u64 {
        (self.0)(text)
    }
}

impl fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TokenCounter(host function)")
    }
}

impl PartialEq for TokenCounter {
    /// The same function (not merely one that counts alike).
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A message's estimate, kept by a caller that appends the same message
/// to engine after engine (the sandbox plays the same scenario at every
/// change of its controls): see `Engine::append_estimated`. It holds its
/// message (so no other takes its address while it is kept) and the rule
/// it was made under.
#[derive(Debug, Clone)]
pub struct Estimate {
    of: Arc<Message>,
    rule: [u64; 5],
    tokens: u64,
}

/// How text becomes an estimated token count (SPEC "tokens", R1.6a). The
/// numbers are settings.
///
/// Text is counted by script: characters of Latin scripts (ASCII and the
/// Latin-1 / Latin Extended blocks, combining marks) and code at
/// `chars_per_token` (default 4), characters of other scripts — Greek,
/// Cyrillic, Hebrew, Arabic and every script from U+0800 on (Indic, Thai,
/// Han, Hiragana, Katakana, Hangul…), and symbols and emoji — at
/// `wide_chars_per_token` (default 1: near one token per character). The
/// two shares are added, then rounded up. With a [`TokenCounter`] set, the
/// host's function counts text instead.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Estimator {
    /// Latin-script characters (Unicode scalar values) per token. Default 4
    /// (SPEC "tokens").
    pub chars_per_token: u64,
    /// Characters of other scripts per token (R1.6a). Default 1.
    pub wide_chars_per_token: u64,
    /// Tokens counted for an image block, whose size the engine cannot see.
    /// Default 1,600 (about a 1,200 × 1,000 px image in Anthropic's
    /// published `width × height / 750` rule).
    pub image_tokens: u64,
    /// Tokens counted for each page of a document block (a PDF, R1.6b)
    /// whose pages the engine can read. Default 3,000: Anthropic's PDF
    /// support page ("Estimate your costs", docs.claude.com/en/docs/
    /// build-with-claude/pdf-support) bills a page's text at "1,500-3,000
    /// tokens per page depending on content density", plus the page as an
    /// image; its own example is a 3-page PDF at about 7,000 tokens.
    pub document_page_tokens: u64,
    /// Tokens counted for a document whose pages the engine cannot read (a
    /// URL, a file id, a PDF whose page objects are compressed). Default
    /// 7,000: the same page's 3-page example.
    pub document_tokens: u64,
    /// Reported usage calibrates the estimate of what was appended since
    /// the last report (R1.6a; default on; see `view::Calibration`).
    pub calibrate: bool,
    /// Calibration starts once this many tokens between reports have been
    /// compared (default 2,000; a preset's settings for a window under
    /// 40,000 tokens take a twentieth of the window).
    pub calibration_min_tokens: u64,
    /// The calibration's factor stays within `100 / this ..= this / 100`
    /// (default 200: from half to double).
    pub calibration_max_pct: u64,
    /// Percent added to an estimate no usage has calibrated yet (R1.6a;
    /// only with `calibrate`; default 0, Claude Code's count): providers
    /// count code and JSON up to ~15 % above characters / 4, so a host
    /// whose first calls go out uncalibrated (a stateless route) sets 15
    /// and an uncalibrated count under a line is not a request the API
    /// refuses. The margin shrinks as calibration arrives and is gone at
    /// `calibration_min_tokens`.
    pub uncalibrated_margin_pct: u64,
    /// The host's counter, if any (R1.6a). Not serialized.
    #[serde(skip)]
    pub counter: Option<TokenCounter>,
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
    /// Count a reply's output at its reported `output_tokens` as it
    /// stands, even when its content's estimate is larger (default off:
    /// the larger of the two, R1.6). A session file's usage is often a
    /// streaming snapshot (`output_tokens` 1 – 25); Claude Code up to
    /// 2.1.29 counted that snapshot as the file records it, later clients
    /// the reply's final output, which the estimate stands in for (see
    /// `transcript::choice`, where a replay turns this on by version).
    pub reported_output_as_is: bool,
}

impl Default for Estimator {
    fn default() -> Self {
        Estimator {
            chars_per_token: 4,
            wide_chars_per_token: 1,
            image_tokens: 1_600,
            document_page_tokens: 3_000,
            document_tokens: 7_000,
            calibrate: true,
            calibration_min_tokens: 2_000,
            calibration_max_pct: 200,
            uncalibrated_margin_pct: 0,
            counter: None,
            tool_use_output_tokens: 87,
            more_tool_use_output_tokens: 35,
            signature_chars_per_token: 5,
            reported_output_as_is: false,
        }
    }
}

impl Estimator {
    /// Claude Code's estimate: characters / 4 whatever the script, with no
    /// calibration (the replay presets use it: a replay counts as the
    /// client did).
    pub fn claude_code() -> Self {
        Estimator {
            wide_chars_per_token: 4,
            calibrate: false,
            ..Estimator::default()
        }
    }

    /// The estimate for one piece of text: the host's counter, or
    /// `ceil(latin / chars_per_token + other / wide_chars_per_token)`.
    pub fn text(&self, text: &str) -> u64 {
        match &self.counter {
            Some(counter) => counter.count(text),
            None => self.of_counts(script_counts(text)),
        }
    }

    /// Tokens for `(latin, other)` character counts, rounded up.
    fn of_counts(&self, (latin, other): (usize, usize)) -> u64 {
        let narrow = self.chars_per_token.max(1);
        let wide = self.wide_chars_per_token.max(1);
        // In units of 1 / (narrow × wide) tokens; u128: no overflow for
        // any count and any setting.
        let units = latin as u128 * u128::from(wide) + other as u128 * u128::from(narrow);
        let per_token = u128::from(narrow) * u128::from(wide);
        u64::try_from(wide_div_ceil(units, per_token)).unwrap_or(u64::MAX)
    }

    /// The estimate for a value's JSON text (kept as it came, so counted
    /// as it will be sent).
    pub fn json(&self, value: &Json) -> u64 {
        self.text(value.text())
    }

    /// [`Estimator::json`] for the object these fields make.
    pub fn json_object(&self, fields: &Extra) -> u64 {
        match &self.counter {
            Some(counter) => counter.count(&object_text(fields)),
            None => self.of_counts(object_counts(fields)),
        }
    }

    /// The longest start of `text`, ending on a character boundary, whose
    /// estimate is at most `tokens` (by the built-in rule; with a host
    /// counter, by it, found by bisection).
    pub fn prefix_within(&self, text: &str, tokens: u64) -> usize {
        if self.text(text) <= tokens {
            return text.len();
        }
        if self.counter.is_some() {
            // The counter is monotone in the text's length (more text,
            // no fewer tokens): bisect over the character boundaries.
            let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            let fits = bounds.partition_point(|&i| self.text(&text[..i]) <= tokens);
            return fits
                .checked_sub(1)
                .and_then(|k| bounds.get(k))
                .copied()
                .unwrap_or(0);
        }
        let narrow = u128::from(self.chars_per_token.max(1));
        let wide = u128::from(self.wide_chars_per_token.max(1));
        let budget = u128::from(tokens) * narrow * wide;
        let mut units = 0u128;
        for (at, c) in text.char_indices() {
            units += if is_wide(c) { narrow } else { wide };
            if units > budget {
                return at;
            }
        }
        text.len()
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
            Block::Other { kind, extra } if DOCUMENT_KINDS.contains(&kind.as_str()) => self.document(extra),
            Block::Other { extra, .. } => self.json_object(extra),
        }
    }

    /// A document or file block as the provider bills it (R1.6b), never as
    /// its base64 or byte-array text: a text source as its text, an image
    /// file as an image, a PDF (or any other file) at
    /// [`Estimator::document_page_tokens`] a page when its bytes are here
    /// and its pages can be read, else [`Estimator::document_tokens`].
    pub fn document(&self, extra: &Extra) -> u64 {
        let source = extra.get("source");
        // Anthropic's plain-text and custom-content documents are text.
        match source.and_then(|s| s.str_field("type")).as_deref() {
            Some("text") => return self.text(&source.and_then(|s| s.str_field("data")).unwrap_or_default()),
            Some("content") => return source.map_or(0, |s| self.json(s)),
            _ => {}
        }
        let media = MEDIA_KEYS
            .iter()
            .find_map(|k| extra.str_field(k).or_else(|| source?.str_field(k)))
            .unwrap_or_default();
        if media.starts_with("image/") {
            return self.image_tokens;
        }
        let bytes = source
            .and_then(|s| s.str_field("data"))
            .and_then(|d| data_bytes(&d))
            .or_else(|| file_bytes(extra.get("data")?.text()))
            .or_else(|| data_bytes(&extra.get("file")?.str_field("file_data")?))
            .or_else(|| file_bytes(extra.get("file_data")?.text()));
        match bytes {
            Some(b) if media.starts_with("text/") => match std::str::from_utf8(&b) {
                Ok(text) => self.text(text),
                Err(_) => self.document_tokens,
            },
            Some(b) => match pdf_pages(&b) {
                0 => self.document_tokens,
                pages => pages.saturating_mul(self.document_page_tokens),
            },
            None => self.document_tokens,
        }
    }

    /// The part of [`Estimator::message`] that images and documents make
    /// (R1.6b: figures as the provider bills them, not text estimates, so
    /// the margin an uncalibrated text estimate keeps leaves them out).
    pub fn media(&self, message: &Message) -> u64 {
        let media = |b: &Block| match b {
            Block::Image { .. } => self.image_tokens,
            Block::Other { kind, extra } if DOCUMENT_KINDS.contains(&kind.as_str()) => self.document(extra),
            _ => 0,
        };
        match &message.content {
            Content::Text(_) => 0,
            Content::Blocks(blocks) => blocks
                .iter()
                .map(|b| match b {
                    Block::ToolResult {
                        content: ToolResultContent::Blocks(inner),
                        ..
                    } => inner.iter().map(media).sum(),
                    b => media(b),
                })
                .sum(),
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

    /// [`Estimator::message`] of `message`: `known`'s when it was made for
    /// this message under this rule, else estimated and kept there. With a
    /// host's counter, always counted and never kept.
    pub fn known(&self, message: &Arc<Message>, known: &mut Option<Estimate>) -> u64 {
        if self.counter.is_some() {
            return self.message(message);
        }
        // Every field `message` reads.
        let rule = [
            self.chars_per_token,
            self.wide_chars_per_token,
            self.image_tokens,
            self.document_page_tokens,
            self.document_tokens,
        ];
        match known {
            Some(e) if e.rule == rule && Arc::ptr_eq(&e.of, message) => e.tokens,
            _ => {
                let tokens = self.message(message);
                *known = Some(Estimate {
                    of: Arc::clone(message),
                    rule,
                    tokens,
                });
                tokens
            }
        }
    }
}

/// Whether a character counts at the wide rate: from U+0380 on (the same
/// split [`script_counts`] makes by a character's first UTF-8 byte).
fn is_wide(c: char) -> bool {
    u32::from(c) >= 0x380
}

/// `(latin, other)`: the characters of `s` counted at the Latin rate and
/// at the wide rate (see [`Estimator`]). The split is made on each
/// character's first UTF-8 byte: below 0xCE (up to U+037F) Latin, from
/// 0xCE (U+0380: Greek, Cyrillic, Hebrew, Arabic, then every 3- and 4-byte
/// character) wide. Eight bytes at a time, a few operations per word and
/// no branch on the text.
pub fn script_counts(s: &str) -> (usize, usize) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    // Added to a byte's low seven bits, carries into bit 7 from 0x4E on:
    // with bit 7 set, that is a byte of 0xCE or more.
    const FROM_CE: u64 = 0x3232_3232_3232_3232;
    let mut rest = s.as_bytes();
    let (mut continuation, mut wide) = (0usize, 0usize);
    let mut word = |w: u64| {
        // Bit 7 set and bit 6 clear: a continuation byte (flag in bit 0);
        // 0xCE or more: the first byte of a wide character (flag in bit 4).
        let flags = ((w & !(w << 1) & HIGH) >> 7) | ((((w & LOW7) + FROM_CE) & w & HIGH) >> 3);
        // Every byte is at most 17, so the multiply sums the eight bytes
        // into the top one without overflow: continuation flags in its low
        // nibble (at most 8), wide ones in its high nibble.
        let sum = flags.wrapping_mul(0x0101_0101_0101_0101) >> 56;
        continuation += (sum & 0xF) as usize;
        wide += (sum >> 4) as usize;
    };
    while let Some((chunk, tail)) = rest.split_first_chunk::<8>() {
        word(u64::from_le_bytes(*chunk));
        rest = tail;
    }
    // The tail, padded with zero bytes (ASCII: counted as nothing here).
    let mut last = [0u8; 8];
    last[..rest.len()].copy_from_slice(rest);
    word(u64::from_le_bytes(last));
    let chars = s.len() - continuation;
    (chars - wide, wide)
}

/// `(latin, other)` characters of the object these fields make: `{` `}`,
/// a comma between entries, each key as a JSON string, a colon, each
/// value's text.
fn object_counts(fields: &Extra) -> (usize, usize) {
    let mut latin = 2 + fields.len().saturating_sub(1);
    let mut wide = 0;
    for (k, v) in fields.iter() {
        let (key_latin, key_wide) = script_counts(k);
        let (value_latin, value_wide) = script_counts(v.text());
        latin += key_latin + escapes(k) + 2 + 1 + value_latin;
        wide += key_wide + value_wide;
    }
    (latin, wide)
}

/// The JSON text of the object these fields make (for a host counter).
fn object_text(fields: &Extra) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        crate::message::write_json_string(&mut out, k);
        out.push(':');
        out.push_str(v.text());
    }
    out.push('}');
    out
}

/// What escaping adds to a string's JSON text: `\"`, `\\` and the short
/// control escapes one character each, other control characters
/// `\u00XX`, five.
fn escapes(s: &str) -> usize {
    s.bytes()
        .map(|b| match b {
            b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 1,
            0..0x20 => 5,
            _ => 0,
        })
        .sum()
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

/// Block kinds that carry a document or a file: Anthropic's `document`, the
/// AI SDK's, LangChain's and Chat Completions' `file`, Responses'
/// `input_file`.
const DOCUMENT_KINDS: [&str; 3] = ["document", "file", "input_file"];

/// Where a file part states its media type.
const MEDIA_KEYS: [&str; 4] = ["mediaType", "media_type", "mime_type", "mimeType"];

/// A file's bytes from the JSON text a host gave: a string of base64 (or a
/// `data:` URL holding it), an array of byte values (a `Buffer`'s JSON is
/// `{"type":"Buffer","data":[...]}`), or an object keyed `"0"`, `"1"`, …
/// (a `Uint8Array`'s JSON). `None` for a URL, an id, anything else.
fn file_bytes(json: &str) -> Option<Vec<u8>> {
    if let Some(quoted) = json.strip_prefix('"') {
        return data_bytes(quoted.strip_suffix('"')?);
    }
    // The last `]` and `:` found byte by byte (ASCII: the same index as
    // `rfind`): `str`'s backward search for a `char` is ~0.8 KB of the
    // modules that nothing else needs.
    let body = match (json.find('['), json.bytes().rposition(|b| b == b']')) {
        (Some(open), Some(close)) if open < close => &json[open + 1..close],
        _ => json.strip_prefix('{')?.strip_suffix('}')?,
    };
    // `37,80,…`, or `"0":37,"1":80,…`: each item's value is a byte.
    // A loop, not a collect into `Option<Vec<u8>>`: the same bytes, or
    // `None` at the first item that is not one, in less code.
    let mut bytes = Vec::new();
    for item in body.split(',') {
        if item.trim().is_empty() {
            continue;
        }
        let digits = item[item.bytes().rposition(|b| b == b':').map_or(0, |colon| colon + 1)..].trim();
        let value = digits.bytes().try_fold(0u16, |n, d| {
            d.is_ascii_digit()
                .then(|| n * 10 + u16::from(d - b'0'))
                .filter(|n| *n < 256)
        })?;
        if digits.is_empty() {
            return None;
        }
        bytes.push(value as u8);
    }
    Some(bytes)
}

/// The bytes of base64 text or of a `data:…;base64,` URL.
fn data_bytes(text: &str) -> Option<Vec<u8>> {
    match text.strip_prefix("data:") {
        Some(url) => base64(&url[url.find(";base64,")? + 8..]),
        None => base64(text),
    }
}

/// Standard base64 (whitespace ignored, padding optional); `None` for any
/// other character.
fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' | b' ' | b'\n' | b'\r' | b'\t' | b'\\' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// How many page objects a PDF's bytes show (`/Type /Page`, not `/Pages`);
/// 0 when they are not PDF or its page objects sit in compressed object
/// streams.
fn pdf_pages(bytes: &[u8]) -> u64 {
    if !bytes.starts_with(b"%PDF") {
        return 0;
    }
    let mut pages = 0;
    let mut at = 0;
    while let Some(i) = bytes[at..].windows(5).position(|w| w == b"/Type") {
        let mut j = at + i + 5;
        while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
            j += 1;
        }
        if bytes[j..].starts_with(b"/Page") && !bytes.get(j + 5).is_some_and(u8::is_ascii_alphanumeric) {
            pages += 1;
        }
        at = j;
    }
    pages
}

/// `n / d` and `n % d`, for `d > 0`. `u128`'s own `/` and `%` are a
/// library routine in wasm (compiler_builtins' `u128_div_rem`, ~1 KB of
/// each module): figures that fit a `u64` are divided as `u64`, the rest
/// (figures past any real count, or a setting's arithmetic) one bit a
/// step.
pub(crate) fn wide_div_rem(n: u128, d: u128) -> (u128, u128) {
    if let (Ok(n), Ok(d)) = (u64::try_from(n), u64::try_from(d)) {
        return (u128::from(n / d), u128::from(n % d));
    }
    // `n`'s bits from the top, each shifted into `rest` (shifts by a
    // constant: a shift by a variable is a library routine too).
    let (mut n, mut quotient, mut rest) = (n, 0u128, 0u128);
    for _ in 0..128 {
        // `rest` < `d` before the shift; a bit shifted out of the top is
        // 2^128, more than any `d`.
        let carry = rest >> 127;
        rest = (rest << 1) | (n >> 127);
        n <<= 1;
        quotient <<= 1;
        if carry != 0 || rest >= d {
            rest = rest.wrapping_sub(d);
            quotient |= 1;
        }
    }
    (quotient, rest)
}

/// `n / d` rounded up, for `d > 0` ([`wide_div_rem`]).
pub(crate) fn wide_div_ceil(n: u128, d: u128) -> u128 {
    let (quotient, rest) = wide_div_rem(n, d);
    quotient + u128::from(rest != 0)
}

#[cfg(test)]
mod tests;
