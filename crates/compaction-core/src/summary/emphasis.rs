//! What the offline summariser brings forward when the user or a hook
//! gave instructions (R7.2, R7.10; seed 002: "inputs change the Summary's
//! emphasis"). An extractive summariser cannot follow instructions as a
//! model would; it can let their words choose what it quotes: the
//! instructions' terms (words of four or more letters or digits, less a
//! few common ones, lower-cased) pick
//! - the lines of the summarised messages that name the most of them,
//!   quoted in section 1 (at most [`QUOTED_LINES`], in history order);
//! - the files whose paths name one, listed first in section 3;
//! - the tool errors that name one, listed first in section 4.
//!
//! Nothing is left out for it: only the order and the quotes change, so
//! the retention check still passes. Without instructions, or with
//! instructions of common words only, the summary is as before.

use super::{assistant_text, tool_result_text, truncate_chars, user_prompt_text};
use crate::message::{Block, Message};

/// Lines quoted for the instructions (at most).
pub const QUOTED_LINES: usize = 6;

/// Characters kept of one quoted line.
const LINE_CHARS: usize = 300;

/// Words that say how to summarise rather than what about.
const COMMON: &[&str] = &[
    "about",
    "also",
    "been",
    "each",
    "every",
    "focus",
    "from",
    "have",
    "into",
    "just",
    "keep",
    "make",
    "more",
    "most",
    "only",
    "other",
    "please",
    "should",
    "some",
    "such",
    "summarise",
    "summarize",
    "summary",
    "sure",
    "than",
    "that",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "what",
    "when",
    "where",
    "which",
    "while",
    "will",
    "with",
    "would",
    "your",
];

/// The instructions' terms, each once, in the order they first appear.
pub fn terms<'a>(instructions: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for text in instructions {
        for word in text.split(|c: char| !c.is_alphanumeric()) {
            let word = word.to_lowercase();
            if word.chars().count() >= 4 && !COMMON.contains(&word.as_str()) && !out.contains(&word) {
                out.push(word);
            }
        }
    }
    out
}

/// How many of `terms` `text` names (case-insensitive).
pub fn named(text: &str, terms: &[String]) -> usize {
    Finder::new(terms).count(text)
}

/// A search for many terms at once, built once for all the lines it is
/// asked about (the offline summary asks it of every line of the history):
/// one pass over a line's bytes, each looked up in a table of the terms
/// that begin with it, where a search per term passes over the line once
/// for each. What `to_lowercase` then `contains` finds, without a lowered
/// copy of an ASCII line.
struct Finder<'a> {
    terms: &'a [String],
    /// Per 64 terms: for each byte, the terms (bits) whose first byte it
    /// is, and those whose second byte it is (a term of one byte: every
    /// byte), ASCII letters in either case (terms are lower-case: a folded
    /// comparison then needs no lowering per byte to find a start); and all
    /// of its non-empty terms. A byte starts a term to compare only when
    /// the next byte can follow it: the first byte alone let through about
    /// a third of a history's bytes.
    starts: Vec<Table>,
    /// How many terms are empty (named by every text).
    empty: usize,
}

/// [`Finder::starts`]' tables for up to 64 terms.
#[derive(Clone)]
struct Table {
    first: [u64; 256],
    second: [u64; 256],
    all: u64,
}

impl<'a> Finder<'a> {
    fn new(terms: &'a [String]) -> Self {
        let table = Table {
            first: [0; 256],
            second: [0; 256],
            all: 0,
        };
        let mut starts = vec![table; terms.len().div_ceil(64)];
        let mut empty = 0;
        for (i, term) in terms.iter().enumerate() {
            let bit = 1 << (i % 64);
            let t = &mut starts[i / 64];
            let (b, second) = match *term.as_bytes() {
                [] => {
                    empty += 1;
                    continue;
                }
                [b] => (b, None),
                [b, c, ..] => (b, Some(c)),
            };
            t.first[usize::from(b)] |= bit;
            t.first[usize::from(b.to_ascii_uppercase())] |= bit;
            match second {
                Some(c) => {
                    t.second[usize::from(c)] |= bit;
                    t.second[usize::from(c.to_ascii_uppercase())] |= bit;
                }
                None => t.second.iter_mut().for_each(|s| *s |= bit),
            }
            t.all |= bit;
        }
        Finder { terms, starts, empty }
    }

    fn count(&self, text: &str) -> usize {
        if self.terms.is_empty() {
            return 0;
        }
        if text.is_ascii() {
            self.count_bytes(text.as_bytes(), true)
        } else {
            self.count_bytes(text.to_lowercase().as_bytes(), false)
        }
    }

    /// The terms `text` holds; `fold`: compare its bytes ASCII-lowered.
    fn count_bytes(&self, text: &[u8], fold: bool) -> usize {
        let byte = |b: u8| if fold { b.to_ascii_lowercase() } else { b };
        let mut found = self.empty;
        for (chunk, t) in self.starts.iter().enumerate() {
            let mut left = t.all;
            for (at, &b) in text.iter().enumerate() {
                // Not lowered: the tables have both cases, and a text not
                // folded was lowered whole (it holds no upper-case ASCII).
                // The last byte has no next: only a term of one byte can
                // start there, and the comparison below says which.
                let next = text.get(at + 1).map_or(u64::MAX, |&c| t.second[usize::from(c)]);
                let mut maybe = t.first[usize::from(b)] & next & left;
                while maybe != 0 {
                    let bit = maybe.trailing_zeros() as usize;
                    maybe &= maybe - 1;
                    let term = self.terms[chunk * 64 + bit].as_bytes();
                    let rest = &text[at..];
                    if rest.len() >= term.len() && rest.iter().zip(term).all(|(a, b)| byte(*a) == *b) {
                        found += 1;
                        left &= !(1 << bit);
                    }
                }
                if left == 0 {
                    break;
                }
            }
        }
        found
    }
}

/// The lines to quote: `(message position, line)` of the lines that name
/// the most terms (ties: the later line), at most [`QUOTED_LINES`], in
/// history order.
pub fn quoted<'a>(messages: impl IntoIterator<Item = &'a Message>, terms: &[String]) -> Vec<(usize, String)> {
    if terms.is_empty() {
        return Vec::new();
    }
    let finder = Finder::new(terms);
    let mut found: Vec<(usize, usize, String)> = Vec::new(); // (score, position, line)
    for (position, message) in messages.into_iter().enumerate() {
        for text in texts(message) {
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                let score = finder.count(line);
                if score > 0 && !found.iter().any(|f| f.2 == line) {
                    found.push((score, position, line.to_owned()));
                }
            }
        }
    }
    // The best lines, picked without a sort (one fewer monomorphised sort in
    // the module): each round the highest score not yet chosen, a tie to the
    // later line.
    let mut chosen = vec![false; found.len()];
    for _ in 0..QUOTED_LINES {
        let mut best: Option<usize> = None;
        for (i, f) in found.iter().enumerate() {
            if !chosen[i] && best.is_none_or(|b| f.0 >= found[b].0) {
                best = Some(i);
            }
        }
        match best {
            Some(i) => chosen[i] = true,
            None => break,
        }
    }
    let mut out = Vec::with_capacity(QUOTED_LINES);
    for (i, (_, position, line)) in found.iter().enumerate() {
        if chosen[i] {
            out.push((*position, truncate_chars(line, LINE_CHARS)));
        }
    }
    out
}

/// The text a message shows: a prompt, the assistant's text, tool results.
fn texts(message: &Message) -> Vec<String> {
    let mut out: Vec<String> = user_prompt_text(message).into_iter().collect();
    out.extend(assistant_text(message));
    for block in message.content.blocks() {
        if let Block::ToolResult { content, .. } = block {
            out.push(tool_result_text(content));
        }
    }
    out
}

/// `items` with those naming a term first (each group in its own order).
pub fn first_named<T>(items: &mut [T], terms: &[String], text: impl Fn(&T) -> &str) {
    let finder = Finder::new(terms);
    let naming: Vec<bool> = items.iter().map(|item| finder.count(text(item)) > 0).collect();
    for (a, b) in partition_swaps(&naming) {
        items.swap(a, b);
    }
}

/// The swaps that move the items flagged in `naming` first, each group in
/// its own order (a stable partition; not generic, so the module holds one
/// copy for every item type, where a stable sort is one per type).
fn partition_swaps(naming: &[bool]) -> Vec<(usize, usize)> {
    // `order[k]`: the index of the item that belongs at `k`.
    let mut order: Vec<usize> = Vec::with_capacity(naming.len());
    for first in [true, false] {
        for (i, &n) in naming.iter().enumerate() {
            if n == first {
                order.push(i);
            }
        }
    }
    // Each cycle of the permutation, one swap per item moved.
    let mut done = vec![false; order.len()];
    let mut swaps = Vec::new();
    for start in 0..order.len() {
        let mut k = start;
        while !done[k] {
            done[k] = true;
            let from = order[k];
            if from == start {
                break;
            }
            swaps.push((k, from));
            k = from;
        }
    }
    swaps
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `named` as it was before its ASCII path: lowered, then searched.
    fn named_lowered(text: &str, terms: &[String]) -> usize {
        let lower = text.to_lowercase();
        terms.iter().filter(|t| lower.contains(t.as_str())).count()
    }

    #[test]
    fn named_counts_as_the_lowered_search_does() {
        let terms: Vec<String> = ["parser", "Parser", "", "ünï", "a"].map(String::from).to_vec();
        for text in [
            "",
            "The PARSER fails",
            "parse",
            "a parser, a Parser",
            "ÜNÏ ünï",
            "x\u{130}parser",
            "ﬁle parser",
        ] {
            assert_eq!(named(text, &terms), named_lowered(text, &terms), "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn named_agrees_with_the_lowered_search(text in "[a-zA-Z \u{e9}\u{130}]{0,40}", terms in proptest::collection::vec("[a-zA-Z\u{e9}]{0,5}", 0..4)) {
            prop_assert_eq!(named(&text, &terms), named_lowered(&text, &terms));
        }

        /// Past 64 terms (the finder's second table), and terms repeated.
        #[test]
        fn many_terms_agree_with_the_lowered_search(text in "[a-dA-D \u{e9}]{0,60}", terms in proptest::collection::vec("[a-d\u{e9}]{1,3}", 60..140)) {
            prop_assert_eq!(named(&text, &terms), named_lowered(&text, &terms));
        }
    }

    #[test]
    fn terms_are_the_instructions_own_words() {
        let t = terms(["Focus on the parser errors; keep the TODO list.", "parser tests"]);
        assert_eq!(t, ["parser", "errors", "todo", "list", "tests"]);
        assert_eq!(terms(["keep it short"]), ["short"]);
        assert!(terms(["focus on this"]).is_empty());
    }

    #[test]
    fn the_lines_naming_most_terms_are_quoted_in_order() {
        let history = [
            Message::user("u1", "fix the parser"),
            Message::assistant(
                "a1",
                "The parser fails on errors in nested blocks.\nunrelated line",
            ),
            Message::user("u2", "and the docs"),
        ];
        let t = terms(["parser errors"]);
        let q = quoted(&history, &t);
        assert_eq!(
            q,
            [
                (0, "fix the parser".to_owned()),
                (1, "The parser fails on errors in nested blocks.".to_owned())
            ]
        );
        assert!(quoted(&history, &[]).is_empty());
    }

    #[test]
    fn items_naming_a_term_come_first_each_group_in_order() {
        let t = terms(["parser docs"]);
        let mut items = ["a", "parser.rs", "b", "docs/x", "c", "parser/y", "d"].map(String::from);
        first_named(&mut items, &t, String::as_str);
        assert_eq!(items, ["parser.rs", "docs/x", "parser/y", "a", "b", "c", "d"]);
        // Every pattern of 8 items: the same order as a stable sort.
        for pattern in 0u32..256 {
            let items: Vec<String> = (0..8)
                .map(|i| {
                    if pattern >> i & 1 == 1 {
                        format!("parser{i}")
                    } else {
                        format!("x{i}")
                    }
                })
                .collect();
            let mut want = items.clone();
            want.sort_by_key(|s| usize::from(!s.starts_with("parser")));
            let mut got = items;
            first_named(&mut got, &t, String::as_str);
            assert_eq!(got, want, "pattern {pattern:08b}");
        }
        let mut none = ["b", "a"].map(String::from);
        first_named(&mut none, &[], String::as_str);
        assert_eq!(none, ["b", "a"]);
    }

    #[test]
    fn at_most_the_quoted_lines_best_named_are_kept_ties_to_the_later() {
        let lines: Vec<Message> = (0..10)
            .map(|i| {
                let text = if i % 3 == 0 { "parser errors" } else { "parser" };
                Message::user(format!("u{i}"), format!("{text} {i}"))
            })
            .collect();
        let q = quoted(&lines, &terms(["parser errors"]));
        let at: Vec<usize> = q.iter().map(|(p, _)| *p).collect();
        // Four lines name both terms (0, 3, 6, 9); of the rest the two latest.
        assert_eq!(at, [0, 3, 6, 7, 8, 9]);
    }
}
