//! Legal groups and turns (SPEC "Vocabulary"), kept up to date one append
//! at a time.
//!
//! A **legal group** is the smallest slice of history that can be cut
//! without separating a `tool_use` from its `tool_result`: a cut before
//! position `p` is legal unless some `tool_use` at `a < p` has its result at
//! `r ≥ p`. A `tool_result` whose `tool_use` is nowhere before it (an
//! orphan) joins the group before it, so no slice starts with one.
//!
//! A **turn** starts at each real user prompt (a user message that is not
//! only tool results) and runs to the next one.

use crate::hash::HashMap;

use crate::message::Message;

/// Group and turn boundaries of a message sequence, updated incrementally:
/// [`Segmentation::push`] costs O(1) amortised.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Segmentation {
    /// Index of the first message of each legal group, ascending.
    group_starts: Vec<usize>,
    /// Index of the first message of each turn, ascending. The messages
    /// before the first user prompt, if any, form turn 0 starting at 0.
    turn_starts: Vec<usize>,
    /// Where each `tool_use` id was seen (shared until the next change, so
    /// copying a view is cheap).
    tool_use_at: std::sync::Arc<HashMap<String, usize>>,
    /// `tool_use`s still waiting for their result, by index: no cut may
    /// fall after the first of them, or a result arriving later would be
    /// separated from its call.
    /// (index, how many are waiting there), sorted by index (indices only
    /// grow: a sorted list, no map).
    open: Vec<(usize, usize)>,
    /// The index of each waiting `tool_use` id.
    open_ids: HashMap<String, usize>,
    /// Number of messages seen.
    len: usize,
}

impl Segmentation {
    /// Segments a whole sequence.
    pub fn of<'a>(messages: impl IntoIterator<Item = &'a Message>) -> Self {
        let mut s = Segmentation::default();
        for m in messages {
            s.push(m);
        }
        s
    }

    /// Accounts for one more message at the end.
    pub fn push(&mut self, message: &Message) {
        let at = self.len;
        self.len += 1;

        // The earliest tool_use this message answers; an orphan result
        // counts as answering the message just before it.
        let mut answers: Option<usize> = None;
        for id in message.tool_result_ids() {
            if let Some(index) = self.open_ids.remove(id) {
                if let Ok(pos) = self.open.binary_search_by_key(&index, |&(i, _)| i) {
                    self.open[pos].1 -= 1;
                    if self.open[pos].1 == 0 {
                        self.open.remove(pos);
                    }
                }
            }
            let use_at = self.tool_use_at.get(id).copied().filter(|&a| a < at);
            let a = use_at.unwrap_or(at.saturating_sub(1));
            answers = Some(answers.map_or(a, |b| b.min(a)));
        }
        match answers {
            Some(a) if at > 0 => {
                // Every cut in (a, at] is now illegal: merge the groups that
                // start after `a` into the one holding `a`.
                while self.group_starts.last().is_some_and(|&start| start > a) {
                    self.group_starts.pop();
                }
                if self.group_starts.is_empty() {
                    self.group_starts.push(0);
                }
            }
            _ => self.group_starts.push(at),
        }
        for id in message.tool_use_ids() {
            std::sync::Arc::make_mut(&mut self.tool_use_at)
                .entry(id.to_owned())
                .or_insert(at);
            if !self.open_ids.contains_key(id) {
                self.open_ids.insert(id.to_owned(), at);
                match self.open.last_mut() {
                    Some((index, count)) if *index == at => *count += 1,
                    _ => self.open.push((at, 1)),
                }
            }
        }

        if message.is_user_prompt() || at == 0 {
            self.turn_starts.push(at);
        }
    }

    /// Number of messages segmented.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no message has been segmented.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// First index of each legal group.
    pub fn group_starts(&self) -> &[usize] {
        &self.group_starts
    }

    /// First index of each turn.
    pub fn turn_starts(&self) -> &[usize] {
        &self.turn_starts
    }

    /// Whether a cut just before index `at` keeps every tool pair whole
    /// (`0` and `len` are always legal).
    pub fn is_legal_cut(&self, at: usize) -> bool {
        if at == 0 || at >= self.len {
            return true;
        }
        self.group_starts.binary_search(&at).is_ok() && self.first_open().is_none_or(|open| at <= open)
    }

    /// The index of the first `tool_use` still waiting for its result.
    pub fn first_open(&self) -> Option<usize> {
        self.open.first().map(|&(index, _)| index)
    }

    /// Group starts that are legal cuts: none after a `tool_use` still
    /// waiting for its result.
    pub fn cut_points(&self) -> Vec<usize> {
        let limit = self.first_open().unwrap_or(usize::MAX);
        self.group_starts
            .iter()
            .copied()
            .filter(|&g| g <= limit)
            .collect()
    }

    /// The index ranges of the legal groups.
    pub fn groups(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        ranges(&self.group_starts, self.len)
    }

    /// The index ranges of the turns.
    pub fn turns(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        ranges(&self.turn_starts, self.len)
    }
}

fn ranges(starts: &[usize], len: usize) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    starts
        .iter()
        .enumerate()
        .map(move |(i, &start)| start..starts.get(i + 1).copied().unwrap_or(len))
}

/// Whether a sequence keeps every tool pair legal: each `tool_result`
/// follows its `tool_use`, no `tool_use` is answered twice, and the
/// sequence does not start with a `tool_result`. (A `tool_use` still
/// waiting for its result at the end is legal.) The reference check that
/// property tests hold every operation to.
pub fn pairing_is_legal(messages: &[Message]) -> Result<(), String> {
    let mut open: HashMap<&str, usize> = HashMap::default();
    let mut answered: HashMap<&str, usize> = HashMap::default();
    for (i, m) in messages.iter().enumerate() {
        for id in m.tool_result_ids() {
            if !open.contains_key(id) {
                return Err(format!(
                    "message {i} ({}) answers tool_use `{id}`, which is not before it",
                    m.uuid
                ));
            }
            if let Some(prev) = answered.insert(id, i) {
                return Err(format!(
                    "tool_use `{id}` is answered twice (messages {prev} and {i})"
                ));
            }
        }
        for id in m.tool_use_ids() {
            open.insert(id, i);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Block, Content, Role, ToolResultContent};
    use serde_json::json;

    fn tool_use(uuid: &str, ids: &[&str]) -> Message {
        let blocks = ids
            .iter()
            .map(|id| Block::ToolUse {
                id: (*id).into(),
                name: "Read".into(),
                input: crate::message::Json::from_value(&json!({})),
                extra: Default::default(),
            })
            .collect();
        Message::new(uuid, Role::Assistant, Content::Blocks(blocks))
    }

    fn tool_result(uuid: &str, ids: &[&str]) -> Message {
        let blocks = ids
            .iter()
            .map(|id| Block::ToolResult {
                tool_use_id: (*id).into(),
                content: ToolResultContent::Text("ok".into()),
                is_error: None,
                extra: Default::default(),
            })
            .collect();
        Message::new(uuid, Role::User, Content::Blocks(blocks))
    }

    #[test]
    fn a_tool_use_and_its_result_are_one_group() {
        let history = [
            Message::user("p", "find it"),
            tool_use("a1", &["t1"]),
            tool_result("r1", &["t1"]),
            Message::assistant("a2", "found"),
        ];
        let s = Segmentation::of(&history);
        assert_eq!(s.groups().collect::<Vec<_>>(), [0..1, 1..3, 3..4]);
        assert_eq!(s.turns().collect::<Vec<_>>(), vec![(0..4)]);
        assert!(!s.is_legal_cut(2));
        assert!(s.is_legal_cut(3));
    }

    #[test]
    fn a_late_result_merges_the_groups_it_spans() {
        // t1's result arrives two messages later: everything between joins.
        let history = [
            tool_use("a1", &["t1"]),
            Message::assistant("a2", "still thinking"),
            tool_use("a3", &["t2"]),
            tool_result("r", &["t2", "t1"]),
        ];
        let s = Segmentation::of(&history);
        assert_eq!(s.groups().collect::<Vec<_>>(), vec![(0..4)]);
    }

    #[test]
    fn orphan_results_join_the_group_before_them() {
        let history = [
            Message::user("p", "go"),
            tool_result("r", &["nowhere"]),
            Message::user("q", "next"),
        ];
        let s = Segmentation::of(&history);
        assert_eq!(s.groups().collect::<Vec<_>>(), [0..2, 2..3]);
        assert_eq!(s.turns().collect::<Vec<_>>(), [0..2, 2..3]);
    }

    #[test]
    fn turns_start_at_real_prompts_only() {
        let history = [
            Message::assistant("x", "preamble"),
            Message::user("p1", "one"),
            tool_use("a", &["t"]),
            tool_result("r", &["t"]),
            Message::user("p2", "two"),
        ];
        let s = Segmentation::of(&history);
        assert_eq!(s.turns().collect::<Vec<_>>(), [0..1, 1..4, 4..5]);
    }

    #[test]
    fn pairing_check_names_the_problem() {
        assert!(pairing_is_legal(&[tool_use("a", &["t"]), tool_result("r", &["t"])]).is_ok());
        assert!(pairing_is_legal(&[tool_use("a", &["t"])]).is_ok());
        let err = pairing_is_legal(&[tool_result("r", &["t"]), tool_use("a", &["t"])]).unwrap_err();
        assert!(err.contains("`t`"), "{err}");
        let err = pairing_is_legal(&[
            tool_use("a", &["t"]),
            tool_result("r", &["t"]),
            tool_result("s", &["t"]),
        ])
        .unwrap_err();
        assert!(err.contains("twice"), "{err}");
    }
}
