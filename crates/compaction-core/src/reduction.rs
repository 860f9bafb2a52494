//! Budget reduction (SPEC R2): oversized `tool_result` content keeps its
//! head and tail with a marker between them. Only tool results are touched;
//! user and assistant messages are never truncated individually (R2.1).

use crate::message::{Block, Content, Message, ToolResultContent, Uuid};
use crate::step::{BlockRef, CacheEffect, Evidence, Owner, Step, Tier};
use crate::tokens::TokenFigure;

/// R2.2's numbers, all settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReductionSettings {
    /// Content longer than this many characters is reduced (default 4,000).
    pub max_chars: usize,
    /// Characters kept from the start (default 2,400: 60%).
    pub head_chars: usize,
    /// Characters kept from the end (default 1,600: 40%).
    pub tail_chars: usize,
}

impl ReductionSettings {
    /// A `max_chars` no result reaches (2^32 − 1, exact in JS too): no
    /// reduction.
    pub const OFF: usize = u32::MAX as usize;

    /// No budget reduction: every tool result is sent whole.
    pub fn off() -> Self {
        ReductionSettings {
            max_chars: Self::OFF,
            ..Self::default()
        }
    }

    /// Whether budget reduction is off.
    pub fn is_off(&self) -> bool {
        // u64: on wasm32 `OFF` is `usize::MAX`.
        self.max_chars as u64 >= Self::OFF as u64
    }

    /// Checks the numbers (R2.2): the head and tail kept must together be
    /// at most the threshold, or a "reduced" result would not shrink; the
    /// threshold is at least 1. Off passes.
    pub fn check(&self) -> Result<(), crate::Error> {
        use crate::error::Setting;
        if self.is_off() {
            return Ok(());
        }
        let shown = format!(
            "{{ maxChars: {}, headChars: {}, tailChars: {} }}",
            self.max_chars, self.head_chars, self.tail_chars
        );
        if self.max_chars == 0 {
            return Err(crate::Error::invalid(
                Setting::Reduction,
                shown,
                "the threshold must be at least 1 character",
            ));
        }
        if self.head_chars.saturating_add(self.tail_chars) > self.max_chars {
            return Err(crate::Error::invalid(
                Setting::Reduction,
                shown,
                "head + tail must be at most the threshold, or a reduced result would not shrink",
            ));
        }
        Ok(())
    }
}

impl Default for ReductionSettings {
    fn default() -> Self {
        ReductionSettings {
            max_chars: 4_000,
            head_chars: 2_400,
            tail_chars: 1_600,
        }
    }
}

/// The marker between head and tail (R2.2), `removed` in characters.
pub fn marker(removed: usize) -> String {
    format!("\n...[{removed} chars removed]...\n")
}

/// One reduced `tool_result` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reduced {
    /// Index of the block in its message's content.
    pub block: usize,
    /// The `tool_use_id` it answers.
    pub tool_use_id: String,
    /// Characters removed.
    pub removed_chars: usize,
}

/// Records one message's reductions in the steps the next call reports
/// (R2.2): one budget-reduction step per call, however many messages were
/// reduced since the last one. The first message's reduction adds the
/// step; each later one joins it (its message, its blocks, the characters
/// removed), and the step's `count_before` stays the count as if every
/// result had entered whole: `count_before − count_after` is what the
/// reductions saved. `before` is the count as if this message entered
/// whole, `after` the count with it reduced.
pub(crate) fn record_step(
    pending: &mut Vec<Step>,
    uuid: &Uuid,
    reduced: &[Reduced],
    (before, after): (TokenFigure, TokenFigure),
    settings: &ReductionSettings,
) {
    let blocks = reduced.iter().map(|b| BlockRef {
        uuid: uuid.clone(),
        block: b.block,
    });
    let removed: usize = reduced.iter().map(|b| b.removed_chars).sum();
    if let Some(step) = pending.iter_mut().find(|s| s.rule == RULE) {
        let saved = step.count_before.tokens.saturating_sub(step.count_after.tokens)
            + before.tokens.saturating_sub(after.tokens);
        let removed = removed + removed_in(&step.reason);
        step.messages.push(uuid.clone());
        step.blocks.extend(blocks);
        step.count_before = TokenFigure {
            tokens: after.tokens + saved,
            ..before
        };
        step.count_after = after;
        step.reason = reason(step.blocks.len(), step.messages.len(), removed, settings);
        return;
    }
    pending.push(Step {
        tier: Tier::BudgetReduction,
        rule: RULE,
        owner: Owner::Client,
        evidence: Evidence::ThirdParty,
        count_before: before,
        count_after: after,
        messages: vec![uuid.clone()],
        blocks: blocks.collect(),
        cache: CacheEffect::Intact,
        model_calls: 0,
        reason: reason(reduced.len(), 1, removed, settings),
    });
}

/// The rule of budget reduction's step.
const RULE: &str = "R2.2";

/// The step's reason; [`removed_in`] reads its last number back.
fn reason(results: usize, messages: usize, removed: usize, settings: &ReductionSettings) -> String {
    let within = if messages > 1 {
        format!(" in {messages} messages")
    } else {
        String::new()
    };
    format!(
        "{results} tool result(s){within} over {} characters kept their first {} and last {}: {removed} characters removed",
        settings.max_chars, settings.head_chars, settings.tail_chars
    )
}

/// The characters removed that a [`reason`] states.
fn removed_in(reason: &str) -> usize {
    crate::text::rsplit_once(reason, ": ")
        .map_or(reason, |(_, tail)| tail)
        .strip_suffix(" characters removed")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Reduces every oversized `tool_result` of a message (R2.2) and says which.
/// Call it once per message, when it enters the view: the caller records
/// the result so a block is never reduced twice (R2.3); a reduced block is
/// longer than `max_chars` by the marker's length and must not be cut again.
pub fn reduce_message(message: &Message, settings: &ReductionSettings) -> Option<(Message, Vec<Reduced>)> {
    let Content::Blocks(blocks) = &message.content else {
        return None;
    };
    let mut reduced = Vec::new();
    // Copied only once something is reduced: most messages are not.
    let mut out: Option<Vec<Block>> = None;
    for (i, block) in blocks.iter().enumerate() {
        let Block::ToolResult {
            tool_use_id,
            content,
            is_error,
            extra,
        } = block
        else {
            continue;
        };
        if let Some((content, removed_chars)) = reduce_content(content, settings) {
            out.get_or_insert_with(|| blocks.clone())[i] = Block::ToolResult {
                tool_use_id: tool_use_id.clone(),
                content,
                is_error: *is_error,
                extra: extra.clone(),
            };
            reduced.push(Reduced {
                block: i,
                tool_use_id: tool_use_id.clone(),
                removed_chars,
            });
        }
    }
    let message = Message {
        uuid: message.uuid.clone(),
        role: message.role,
        content: Content::Blocks(out?),
        timestamp: message.timestamp.clone(),
        usage: message.usage.clone(),
        extra: message.extra.clone(),
    };
    Some((message, reduced))
}

/// Reduces one `tool_result`'s content, or `None` when it is within the
/// limit. List content: the text blocks count together; other blocks
/// (images) are kept where they are.
pub fn reduce_content(
    content: &ToolResultContent,
    settings: &ReductionSettings,
) -> Option<(ToolResultContent, usize)> {
    match content {
        ToolResultContent::Absent => None,
        // Never more characters than bytes: a text this short is within
        // the limit without being counted.
        ToolResultContent::Text(text) if text.len() <= settings.max_chars => None,
        ToolResultContent::Text(text) => {
            let (head, tail, removed) = split(text, crate::tokens::char_count(text), settings)?;
            // Joined at their exact length: a `format!` grows by doubling,
            // and the view would hold each reduced result at up to twice
            // its bytes.
            Some((
                ToolResultContent::Text([head, &marker(removed), tail].concat()),
                removed,
            ))
        }
        ToolResultContent::Blocks(blocks) => reduce_blocks(blocks, settings),
    }
}

/// Head and tail of `text` (of `chars` characters) and how many characters
/// lie between them, or `None` when within the limit.
fn split<'a>(text: &'a str, chars: usize, s: &ReductionSettings) -> Option<(&'a str, &'a str, usize)> {
    if !worth_reducing(chars, s) {
        return None;
    }
    let head_end = byte_offset(text, s.head_chars);
    let tail_start = tail_offset(text, s.tail_chars);
    Some((
        &text[..head_end],
        &text[tail_start..],
        chars - s.head_chars - s.tail_chars,
    ))
}

/// Over the limit, and removing more characters than the marker adds: just
/// over 4,000 characters, head + marker + tail would be longer than the
/// original, and a budget reduction must never raise the count.
fn worth_reducing(chars: usize, s: &ReductionSettings) -> bool {
    chars > s.max_chars
        && chars > s.head_chars + s.tail_chars
        && chars - s.head_chars - s.tail_chars > marker(chars - s.head_chars - s.tail_chars).chars().count()
}

/// The byte offset of the `n`th character (a character boundary).
fn byte_offset(text: &str, n: usize) -> usize {
    // The first `n` bytes are `n` characters when they are ASCII.
    if text.as_bytes().get(..n).is_some_and(<[u8]>::is_ascii) {
        return n;
    }
    // Otherwise count character starts (bytes that are not UTF-8
    // continuation bytes): a plain byte loop, fast in the wasm build too.
    let mut seen = 0;
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if (b as i8) >= -0x40 {
            if seen == n {
                return i;
            }
            seen += 1;
        }
    }
    text.len()
}

/// The byte offset where the last `n` characters start, walking back from
/// the end (a tail is short; the text may be long).
fn tail_offset(text: &str, n: usize) -> usize {
    if n == 0 {
        return text.len();
    }
    // The last `n` bytes are `n` characters when they are ASCII.
    if let Some(start) = text.len().checked_sub(n) {
        if text.as_bytes()[start..].is_ascii() {
            return start;
        }
    }
    let mut seen = 0;
    for (i, &b) in text.as_bytes().iter().enumerate().rev() {
        if (b as i8) >= -0x40 {
            seen += 1;
            if seen == n {
                return i;
            }
        }
    }
    0
}

fn reduce_blocks(blocks: &[Block], s: &ReductionSettings) -> Option<(ToolResultContent, usize)> {
    // As for one text: no more characters than bytes.
    let bytes: usize = blocks
        .iter()
        .map(|b| match b {
            Block::Text { text, .. } => text.len(),
            _ => 0,
        })
        .sum();
    if bytes <= s.max_chars {
        return None;
    }
    let lens: Vec<Option<usize>> = blocks
        .iter()
        .map(|b| match b {
            Block::Text { text, .. } => Some(crate::tokens::char_count(text)),
            _ => None,
        })
        .collect();
    let total: usize = lens.iter().flatten().sum();
    if !worth_reducing(total, s) {
        return None;
    }
    let removed = total - s.head_chars - s.tail_chars;
    let tail_from = total - s.tail_chars;
    let mut out = Vec::with_capacity(blocks.len());
    let mut seen = 0; // text characters before the current block
    let mut marker_placed = false;
    for (block, len) in blocks.iter().zip(&lens) {
        let (Block::Text { text, extra }, Some(len)) = (block, len) else {
            out.push(block.clone());
            continue;
        };
        let (start, end) = (seen, seen + len);
        seen = end;
        // This block's characters to keep: [start, head) and [tail_from, end).
        let keep_head = s.head_chars.clamp(start, end) - start;
        let keep_tail_from = tail_from.clamp(start, end) - start;
        let mark = if !marker_placed && end > s.head_chars {
            marker_placed = true;
            marker(removed)
        } else {
            String::new()
        };
        // At its exact length, as for one text.
        let kept = [
            &text[..byte_offset(text, keep_head)],
            &mark,
            &text[tail_offset(text, len - keep_tail_from)..],
        ]
        .concat();
        if !kept.is_empty() {
            out.push(Block::Text {
                text: kept,
                extra: extra.clone(),
            });
        }
    }
    Some((ToolResultContent::Blocks(out), removed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_step_per_call_with_every_message_and_what_it_saved() {
        let settings = ReductionSettings::default();
        let reduced = |block, removed_chars| Reduced {
            block,
            tool_use_id: String::new(),
            removed_chars,
        };
        let figure = TokenFigure::estimated;
        let mut pending = Vec::new();
        record_step(
            &mut pending,
            &Uuid::from("a"),
            &[reduced(0, 2_400)],
            (figure(1_000), figure(400)),
            &settings,
        );
        assert_eq!(
            pending[0].reason,
            "1 tool result(s) over 4000 characters kept their first 2400 and last 1600: 2400 characters removed"
        );
        pending.push(Step::note(
            Tier::Lines,
            "R1.7",
            Owner::Client,
            Evidence::ThirdParty,
            figure(500),
            String::new(),
        ));
        let two = [reduced(1, 100), reduced(3, 50)];
        record_step(
            &mut pending,
            &Uuid::from("b"),
            &two,
            (figure(2_000), figure(1_900)),
            &settings,
        );
        assert_eq!(pending.len(), 2, "joined the step already pending");
        let step = &pending[0];
        assert_eq!(step.messages, [Uuid::from("a"), Uuid::from("b")]);
        assert_eq!(step.blocks.iter().map(|b| b.block).collect::<Vec<_>>(), [0, 1, 3]);
        // Saved 600 then 100: the count as if every result entered whole.
        assert_eq!(
            (step.count_before.tokens, step.count_after.tokens),
            (2_600, 1_900)
        );
        assert_eq!(
            step.reason,
            "3 tool result(s) in 2 messages over 4000 characters kept their first 2400 and last 1600: 2550 characters removed"
        );
    }

    fn text_of(content: &ToolResultContent) -> String {
        match content {
            ToolResultContent::Text(t) => t.clone(),
            ToolResultContent::Blocks(b) => b
                .iter()
                .filter_map(|b| match b {
                    Block::Text { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect(),
            ToolResultContent::Absent => String::new(),
        }
    }

    proptest::proptest! {
        #[test]
        fn offsets_are_char_indices(s in "\\PC{0,40}", n in 0usize..45) {
            let starts: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
            let chars = starts.len();
            proptest::prop_assert_eq!(byte_offset(&s, n), starts.get(n).copied().unwrap_or(s.len()));
            let tail = if n == 0 { s.len() } else if n > chars { 0 } else { starts[chars - n] };
            proptest::prop_assert_eq!(tail_offset(&s, n), tail);
        }
    }

    #[test]
    fn r2_2_keeps_head_and_tail_with_the_exact_marker() {
        let text: String = (0..50_000).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let (out, removed) = reduce_content(
            &ToolResultContent::Text(text.clone()),
            &ReductionSettings::default(),
        )
        .unwrap();
        assert_eq!(removed, 46_000);
        let out = text_of(&out);
        assert!(out.starts_with(&text[..2_400]));
        assert!(out.ends_with(&text[48_400..]));
        assert!(out.contains("\n...[46000 chars removed]...\n"));
        assert_eq!(out.chars().count(), 4_000 + marker(46_000).chars().count());
    }

    #[test]
    fn r2_2_content_at_the_limit_is_untouched() {
        let text = "x".repeat(4_000);
        assert_eq!(
            reduce_content(&ToolResultContent::Text(text), &ReductionSettings::default()),
            None
        );
    }

    #[test]
    fn r2_3_cuts_fall_on_character_boundaries() {
        // 3-byte and 4-byte characters (the emoji is a surrogate pair in JS).
        let text = "日😀".repeat(3_000);
        let (out, removed) =
            reduce_content(&ToolResultContent::Text(text), &ReductionSettings::default()).unwrap();
        assert_eq!(removed, 6_000 - 4_000);
        let out = text_of(&out);
        assert!(out.starts_with(&"日😀".repeat(1_200)));
        assert!(out.ends_with(&"日😀".repeat(800)));
    }

    #[test]
    fn r2_2_list_content_counts_text_blocks_together_and_keeps_images() {
        let image = Block::Image {
            extra: Default::default(),
        };
        let blocks = vec![
            Block::text("a".repeat(2_000)),
            image.clone(),
            Block::text("b".repeat(3_000)),
            Block::text("c".repeat(1_000)),
        ];
        let (out, removed) =
            reduce_content(&ToolResultContent::Blocks(blocks), &ReductionSettings::default()).unwrap();
        assert_eq!(removed, 2_000);
        let ToolResultContent::Blocks(out) = &out else {
            panic!("blocks stay blocks")
        };
        assert!(out.contains(&image));
        let text = text_of(&ToolResultContent::Blocks(out.clone()));
        let expected = format!(
            "{}{}{}{}",
            "a".repeat(2_000),
            "b".repeat(400),
            marker(2_000),
            "b".repeat(600)
        ) + &"c".repeat(1_000);
        assert_eq!(text, expected);
    }

    #[test]
    fn r2_1_only_tool_results_are_touched() {
        let long = "z".repeat(10_000);
        assert!(reduce_message(&Message::user("u", long.clone()), &ReductionSettings::default()).is_none());
        assert!(reduce_message(&Message::assistant("a", long), &ReductionSettings::default()).is_none());
    }
}

#[cfg(test)]
mod settings_tests {
    use super::ReductionSettings;

    #[test]
    fn the_numbers_are_checked_together() {
        assert!(ReductionSettings::default().check().is_ok());
        assert!(ReductionSettings::off().check().is_ok() && ReductionSettings::off().is_off());
        let bad = ReductionSettings {
            max_chars: 100,
            head_chars: 60,
            tail_chars: 41,
        };
        let e = bad.check().unwrap_err().to_string();
        assert!(e.contains("reduction") && e.contains("head + tail"), "{e}");
        let zero = ReductionSettings {
            max_chars: 0,
            head_chars: 0,
            tail_chars: 0,
        };
        assert!(zero.check().is_err());
    }
}
