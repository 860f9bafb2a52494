//! Signed thinking after a client-side rewrite (SPEC R13.1). The API checks
//! that everything before a kept `thinking` / `redacted_thinking` block is
//! what it was signed over; any rewrite the client makes (time-based
//! clearing, snip, collapse, a client summary with a kept tail, reducing a
//! result the model already read) breaks that for every block after it.
//! Server-side clearing is exempt: the check compares what the client sent.

use crate::message::{Block, Message};

/// A block signed over what came before it.
pub fn is_signed_thinking(block: &Block) -> bool {
    matches!(block, Block::Thinking { .. }) || block.kind() == "redacted_thinking"
}

/// Copies of `messages` without their signed thinking blocks, and without a
/// message left empty (it held no `tool_use`): for a request that does not
/// start where the conversation starts (a collapse segment, a truncated
/// prefix), where no thinking block's prefix is what it was signed over.
/// The number of blocks dropped comes back too.
pub(crate) fn without_thinking(messages: Vec<Message>) -> (Vec<Message>, usize) {
    let mut dropped = 0;
    let out = messages
        .into_iter()
        .filter_map(|mut m| {
            if let crate::message::Content::Blocks(blocks) = &mut m.content {
                let before = blocks.len();
                blocks.retain(|b| !is_signed_thinking(b));
                dropped += before - blocks.len();
                if blocks.is_empty() && before > 0 {
                    return None;
                }
            }
            Some(m)
        })
        .collect();
    (out, dropped)
}
