//! What a compaction lost (issue 26, point 5): its summary read back as
//! the nine sections (R7.3), each line with the summarised messages it was
//! taken from. The engine's lineage says which messages a summary replaced
//! ([`Item::replaces`]); the offline summariser only copies, so each line
//! is traced to the messages holding what it quotes: a prompt's or a
//! reply's line, a file path, a tool's name, a failed call's id, or the
//! position it names ("message N"). A line that only counts (section 5)
//! has no source.

use std::sync::{Arc, OnceLock};

use serde::Serialize;

use compaction_core::engine::Engine;
use compaction_core::hash::{HashMap, HashSet};
use compaction_core::message::{Block, Content, Message, ToolResultContent, Uuid};
use compaction_core::summary::{PATH_KEYS, SECTIONS};

use super::Item;

/// One of the summary's nine sections.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Section {
    /// Its title ([`SECTIONS`]).
    pub title: &'static str,
    /// Its lines, in order.
    pub lines: Vec<Line>,
}

/// A line of a summary section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    /// The line as the summary has it.
    pub text: String,
    /// The items of [`Moment::before`](super::Moment::before) it was taken
    /// from, ascending (empty: it quotes none).
    pub sources: Vec<usize>,
}

/// Where each piece of the summarised messages' text is, of the pieces
/// the summary's lines quote ([`Wanted`]): the messages can hold thousands
/// of lines, the summary a few dozen.
#[derive(Default)]
struct Index<'a> {
    /// What the summary's lines look up.
    wanted: Wanted<'a>,
    /// A trimmed line of a text, a path or a tool result's line → items.
    lines: HashMap<&'a str, Vec<usize>>,
    /// The kept start of a cut line → items with a line that starts so.
    starts: HashMap<&'a str, Vec<usize>>,
    /// A tool's name → items calling it.
    tools: HashMap<&'a str, Vec<usize>>,
    /// A `tool_use` id → the items of its call and result.
    ids: HashMap<&'a str, Vec<usize>>,
}

fn add<'a>(map: &mut HashMap<&'a str, Vec<usize>>, key: &'a str, item: usize) {
    let at = map.entry(key).or_default();
    if at.last() != Some(&item) {
        at.push(item);
    }
}

/// The lines and line starts a summary's lines are looked up by.
#[derive(Default)]
struct Wanted<'a> {
    lines: HashSet<&'a str>,
    /// The lengths of `lines`, modulo 512, as bits: most lines of the
    /// messages are none of them, and are passed over without hashing.
    lengths: [u64; 8],
    starts: Vec<&'a str>,
}

impl Wanted<'_> {
    /// Whether `line` is one of `lines`.
    fn line(&self, line: &str) -> bool {
        let bit = line.len() % 512;
        self.lengths[bit / 64] & (1 << (bit % 64)) != 0 && self.lines.contains(line)
    }
}

impl<'a> Wanted<'a> {
    /// What [`sources`] may look up for each line of `summary`.
    fn of(summary: &'a str) -> Self {
        let mut wanted = Wanted::default();
        for line in summary.lines() {
            match looked_up(line) {
                Key::Line(l) => {
                    let bit = l.len() % 512;
                    wanted.lengths[bit / 64] |= 1 << (bit % 64);
                    wanted.lines.insert(l);
                }
                Key::Start(s) => wanted.starts.push(s),
            }
        }
        wanted
    }
}

impl<'a> Index<'a> {
    /// A line, a path: indexed when a summary line quotes it whole or
    /// quotes its start.
    fn line(&mut self, line: &'a str, item: usize) {
        if self.wanted.line(line) {
            add(&mut self.lines, line, item);
        }
        for &start in &self.wanted.starts {
            if line.starts_with(start) {
                add(&mut self.starts, start, item);
            }
        }
    }

    fn text(&mut self, text: &'a str, item: usize) {
        // `split('\n')`, not `lines()`: the trim drops a line's `\r`, the
        // filter the empty piece after a last `\n`; `lines()`' own
        // stripping was a tenth of a +200 groups play.
        for line in text.split('\n').map(trim).filter(|l| !l.is_empty()) {
            self.line(line, item);
        }
    }

    fn message(&mut self, m: &'a Message, item: usize, paths: &mut Vec<(usize, String)>) {
        let blocks = match &m.content {
            Content::Text(text) => return self.text(text, item),
            Content::Blocks(blocks) => blocks,
        };
        for block in blocks {
            match block {
                Block::Text { text, .. } => self.text(text, item),
                Block::ToolUse { id, name, input, .. } => {
                    add(&mut self.tools, name, item);
                    add(&mut self.ids, id, item);
                    for key in PATH_KEYS.iter().chain(&["pattern", "command"]) {
                        if let Some(p) = input.str_field(key) {
                            paths.push((item, p.into_owned()));
                        }
                    }
                }
                Block::ToolResult {
                    tool_use_id, content, ..
                } => {
                    add(&mut self.ids, tool_use_id, item);
                    match content {
                        ToolResultContent::Text(text) => self.text(text, item),
                        ToolResultContent::Blocks(inner) => {
                            for b in inner {
                                if let Block::Text { text, .. } = b {
                                    self.text(text, item);
                                }
                            }
                        }
                        ToolResultContent::Absent => {}
                    }
                }
                _ => {}
            }
        }
    }
}

/// [`str::trim`], ASCII whitespace first a byte at a time (the lines
/// read are mostly indented code: `trim`'s `char` loop was a twentieth of a
/// +200 groups play).
fn trim(line: &str) -> &str {
    // U+0009 to U+000D and the space: `char::is_whitespace`'s ASCII ones.
    let space = |b: &u8| matches!(b, b'\t'..=b'\r' | b' ');
    let bytes = line.as_bytes();
    let start = bytes.iter().position(|b| !space(b)).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|b| !space(b)).map_or(start, |e| e + 1);
    let rest = line.get(start..end).unwrap_or("");
    // Other whitespace is not ASCII: only a rest that starts or ends with a
    // multi-byte character may hold more.
    match (rest.bytes().next(), rest.bytes().next_back()) {
        (Some(first), Some(last)) if first >= 0x80 || last >= 0x80 => rest.trim(),
        _ => rest,
    }
}

/// What a compaction lost ([`Moment::lost`](super::Moment::lost)): its
/// summary's sections, each line traced to the items it was taken from,
/// worked out the first time they are read. A control change plays the
/// scenario again, and the screen reads them only when the panel that shows
/// them is drawn: tracing every line of hundreds of messages was an eighth
/// of a +200 groups play, inside the frame that shows the change.
#[derive(Debug, Clone, Default)]
pub struct Lost(Option<Arc<Traced>>);

#[derive(Debug)]
struct Traced {
    summary: String,
    /// The summarised messages: their item index, and the message as the
    /// store recorded it.
    summarised: Vec<(usize, Arc<Message>)>,
    sections: OnceLock<Vec<Section>>,
}

impl Lost {
    /// The sections of `summary` (a compaction's summary message), each
    /// line traced to the items of `before` the summary replaced
    /// (`replaced`), read from `engine`'s store as they were recorded.
    pub(super) fn of(summary: &str, before: &[Item], replaced: &HashSet<&Uuid>, engine: &Engine) -> Lost {
        let summarised = before
            .iter()
            .enumerate()
            .filter(|(_, i)| replaced.contains(&i.uuid))
            .filter_map(|(at, i)| engine.store().get(&i.uuid).map(|m| (at, m.clone())))
            .collect();
        Lost(Some(Arc::new(Traced {
            summary: summary.to_owned(),
            summarised,
            sections: OnceLock::new(),
        })))
    }

    /// The sections (none when the event did not compact).
    pub fn sections(&self) -> &[Section] {
        match &self.0 {
            Some(t) => t.sections.get_or_init(|| {
                let summarised: Vec<(usize, &Message)> =
                    t.summarised.iter().map(|(at, m)| (*at, m.as_ref())).collect();
                sections(&t.summary, &summarised)
            }),
            None => &[],
        }
    }
}

impl std::ops::Deref for Lost {
    type Target = [Section];

    fn deref(&self) -> &[Section] {
        self.sections()
    }
}

impl PartialEq for Lost {
    /// Equal when traced from the same summary and the same recorded
    /// messages at the same items (the sections follow from them): no
    /// tracing to compare.
    fn eq(&self, other: &Lost) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                Arc::ptr_eq(a, b)
                    || (a.summary == b.summary
                        && a.summarised.len() == b.summarised.len()
                        && a.summarised
                            .iter()
                            .zip(&b.summarised)
                            .all(|((i, m), (j, n))| i == j && (Arc::ptr_eq(m, n) || m == n)))
            }
            _ => false,
        }
    }
}

impl Serialize for Lost {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.sections().serialize(serializer)
    }
}

/// The sections of `summary`, each line traced to the `summarised`
/// messages (item index, message).
fn sections(summary: &str, summarised: &[(usize, &Message)]) -> Vec<Section> {
    let mut index = Index {
        wanted: Wanted::of(summary),
        ..Index::default()
    };
    let mut paths = Vec::new();
    for &(at, m) in summarised {
        index.message(m, at, &mut paths);
    }
    for (at, p) in &paths {
        index.line(p.as_str(), *at);
    }
    let mut out: Vec<Section> = Vec::new();
    for line in summary.lines() {
        match (heading(line), out.last_mut()) {
            (Some(title), _) => out.push(Section {
                title,
                lines: Vec::new(),
            }),
            (None, Some(section)) if !line.trim().is_empty() => section.lines.push(Line {
                text: line.trim().to_owned(),
                sources: sources(line, &index, summarised),
            }),
            _ => {}
        }
    }
    out
}

/// The section a line opens (`N. Title:`, the N-th of [`SECTIONS`]), if
/// it is a heading.
fn heading(line: &str) -> Option<&'static str> {
    let (n, rest) = line.trim().split_once(". ")?;
    // The number as `format!` writes it: digits, no leading zero.
    if n.starts_with('0') || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let title = SECTIONS.get(n.parse::<usize>().ok()?.checked_sub(1)?)?;
    (rest.strip_suffix(':')? == *title).then_some(title)
}

/// What a summary line that names no message, tool or failed call is
/// looked up by.
enum Key<'a> {
    /// A line quoted whole.
    Line(&'a str),
    /// The kept start of a line the summary cut.
    Start(&'a str),
}

fn looked_up(line: &str) -> Key<'_> {
    let text = line.trim();
    let text = text.strip_prefix("- ").unwrap_or(text);
    let text = text.strip_prefix("Continue with: ").unwrap_or(text);
    match text.rsplit_once(" ...[") {
        Some((kept, marker)) if marker.ends_with(" chars removed]") && !kept.is_empty() => Key::Start(kept),
        _ => Key::Line(text),
    }
}

/// The items a summary line was taken from.
fn sources(line: &str, index: &Index<'_>, summarised: &[(usize, &Message)]) -> Vec<usize> {
    let text = line.trim();
    let text = text.strip_prefix("- ").unwrap_or(text);
    let mut found: Vec<usize> = Vec::new();
    // "message N: …": the N-th message summarised.
    if let Some((n, _)) = text
        .strip_prefix("message ")
        .and_then(|rest| rest.split_once(": "))
        .and_then(|(n, rest)| n.parse::<usize>().ok().map(|n| (n, rest)))
    {
        found.extend(
            n.checked_sub(1)
                .and_then(|n| summarised.get(n))
                .map(|(at, _)| *at),
        );
    } else if let Some(tools) = text.strip_prefix("Tools used: ") {
        for tool in tools.trim_end_matches('.').split(", ") {
            let name = tool.rsplit_once(" ×").map_or(tool, |(name, _)| name);
            found.extend(index.tools.get(name).into_iter().flatten());
        }
    } else if let Some(id) = text
        .split_once(" (")
        .and_then(|(_, rest)| rest.split_once("): "))
        .and_then(|(id, _)| index.ids.get(id))
    {
        // A failed call: "- Tool (id): its first line".
        found.extend(id);
    } else {
        match looked_up(line) {
            Key::Start(kept) => found.extend(index.starts.get(kept).into_iter().flatten()),
            Key::Line(text) => found.extend(index.lines.get(text).into_iter().flatten()),
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_is_str_trim() {
        // ASCII whitespace, the vertical tab `is_ascii_whitespace` leaves
        // out, Unicode whitespace (NEL, no-break, ideographic space, line
        // separator), and characters that are not whitespace, at both ends.
        let ends: Vec<&str> = "| |\t|\r|\x0B|\x0C| \r|\u{85}|\u{A0}| \u{3000} |\u{2028}\t|é|\u{200B}|x|\x1C"
            .split('|')
            .collect();
        for a in &ends {
            for b in &ends {
                for middle in ["", "a", "a b", " ", "λ", "\u{A0}"] {
                    let line = format!("{a}{middle}{b}");
                    assert_eq!(trim(&line), line.trim(), "{line:?}");
                }
            }
        }
    }

    #[test]
    fn a_text_is_read_as_its_lines_trimmed() {
        let text = "  one\r\n\ttwo  \n\n \u{A0}three\u{3000}\r\n\r\nfour\r";
        let mut index = Index {
            wanted: Wanted::of("one\ntwo\nthree\nfour"),
            ..Index::default()
        };
        index.text(text, 7);
        let mut found: Vec<&str> = index.lines.keys().copied().collect();
        found.sort_unstable();
        assert_eq!(found, ["four", "one", "three", "two"]);
        assert!(index.lines.values().all(|items| items == &[7]));
    }
}
