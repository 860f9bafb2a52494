//! A view as drawable items: each entry's kind, tokens, label, lineage,
//! and what became of its signed thinking blocks.

use serde::Serialize;

use compaction_core::api::thinking::is_signed_thinking;
use compaction_core::engine::Engine;
use compaction_core::message::{Block, Message, Role, Uuid};
use compaction_core::view::Source;

/// What a view entry is, for drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// The system prompt.
    System,
    /// A compaction's summary.
    Summary,
    /// A collapsed segment's summary (Tier 3).
    Collapse,
    /// Restored material (a file).
    Attachment,
    /// A user message.
    User,
    /// An assistant message.
    Assistant,
    /// A message carrying tool results.
    ToolResult,
}

/// One entry of a view, for drawing.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// What it is.
    pub kind: Kind,
    /// Its uuid (empty for the system prompt).
    pub uuid: Uuid,
    /// Estimated tokens.
    pub tokens: u64,
    /// A short description (first words, or the tool and path).
    pub label: String,
    /// What it replaced (summaries and collapses): its lineage.
    pub replaces: Vec<Uuid>,
    /// Whether the view reduced or cleared some of its blocks.
    pub reduced: bool,
    /// Kept verbatim after the summary by the compaction in force (its
    /// boundary's preserved uuids, R7.5).
    pub preserved: bool,
    /// Its signed thinking blocks as the session recorded them, and what
    /// became of each (R13.1).
    pub thinking: Vec<Thought>,
}

/// What became of a signed thinking block in the view (R13.1), as the
/// engine's view and steps say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Fate {
    /// Sent whole, over the prefix it was signed over: no step named it.
    Kept,
    /// The view no longer holds it: dropped whole (`thinking: strip`).
    Dropped,
    /// Still sent whole, but an R13.1 step named it: what precedes it was
    /// rewritten. The setting says who deals with it (`drop_block`: the
    /// server drops it; `keep`: the host).
    Stale,
}

/// One signed thinking block of a message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Thought {
    /// `thinking` or `redacted_thinking`.
    pub kind: String,
    /// Its index in the message as the session recorded it.
    pub block: usize,
    /// The first words of its reasoning (empty when redacted).
    pub excerpt: String,
    /// What became of it.
    pub fate: Fate,
}

/// The thinking blocks R13.1 steps named so far in a play, by message
/// and index in the view's copy: their prefix was rewritten.
#[derive(Default)]
pub(super) struct Stale(compaction_core::hash::HashSet<(Uuid, usize)>);

impl Stale {
    /// Remembers the blocks the R13.1 steps among `steps` name.
    pub(super) fn note(&mut self, steps: &[compaction_core::step::Step]) {
        for step in steps.iter().filter(|s| s.rule == "R13.1") {
            self.0
                .extend(step.blocks.iter().map(|b| (b.uuid.clone(), b.block)));
        }
    }
}

/// The signed thinking blocks of the recorded `original`, and what became
/// of each in `shown` (the view's copy).
fn thoughts(original: &Message, shown: &Message, stale: &Stale) -> Vec<Thought> {
    let recorded = original.content.blocks();
    if !recorded.iter().any(is_signed_thinking) {
        return Vec::new();
    }
    let now = shown.content.blocks();
    recorded
        .iter()
        .enumerate()
        .filter(|(_, b)| is_signed_thinking(b))
        .map(|(i, b)| {
            let fate = match now.iter().position(|n| n == b) {
                None => Fate::Dropped,
                Some(at) if stale.0.contains(&(shown.uuid.clone(), at)) => Fate::Stale,
                Some(_) => Fate::Kept,
            };
            let excerpt = match b {
                Block::Thinking { thinking, .. } => excerpt(thinking),
                _ => String::new(),
            };
            Thought {
                kind: b.kind().to_owned(),
                block: i,
                excerpt,
                fate,
            }
        })
        .collect()
}

const EXCERPT_WORDS: usize = 9;

fn excerpt(text: &str) -> String {
    let mut words = text.split_whitespace();
    let mut out: Vec<&str> = words.by_ref().take(EXCERPT_WORDS).collect();
    if words.next().is_some() {
        out.push("…");
    }
    out.join(" ")
}

/// The view as items, the system prompt first when there is one.
pub fn items(engine: &Engine) -> Vec<Item> {
    items_with(
        engine,
        &mut Labels::default(),
        &Stale::default(),
        &compaction_core::hash::HashSet::default(),
    )
}

/// Labels already made, by uuid, with the message they describe (a view
/// that changes a message holds a new `Arc`, and gets a new label): this
/// play's, and the last play's, from which a label still current is taken
/// over (a control change plays the same messages again; with the cut's
/// reasons, which quote the items' labels, 7% of a +200 groups play).
#[derive(Default)]
pub(super) struct Labels {
    now: LabelMap,
    last: LabelMap,
}

type LabelMap =
    compaction_core::hash::HashMap<Uuid, (std::sync::Arc<compaction_core::message::Message>, String)>;

thread_local! {
    /// The labels of the last play on this thread.
    static LAST: std::cell::RefCell<LabelMap> = std::cell::RefCell::default();
}

impl Labels {
    /// Labels that reuse the last play's.
    pub(super) fn after_last() -> Self {
        Labels {
            now: LabelMap::default(),
            last: LAST.take(),
        }
    }

    /// Keeps this play's labels for the next.
    pub(super) fn keep(self) {
        LAST.set(self.now);
    }

    fn of(&mut self, m: &std::sync::Arc<compaction_core::message::Message>) -> String {
        if let Some((seen, text)) = self.now.get(&m.uuid) {
            if std::sync::Arc::ptr_eq(seen, m) {
                return text.clone();
            }
        }
        let text = match self.last.remove(&m.uuid) {
            Some((seen, text)) if std::sync::Arc::ptr_eq(&seen, m) => text,
            _ => label(m),
        };
        self.now.insert(m.uuid.clone(), (m.clone(), text.clone()));
        text
    }
}

/// The view as items; `preserved` are the messages the compaction in force
/// kept verbatim.
pub(super) fn items_with(
    engine: &Engine,
    labels: &mut Labels,
    stale: &Stale,
    preserved: &compaction_core::hash::HashSet<Uuid>,
) -> Vec<Item> {
    let mut out = Vec::with_capacity(engine.view().len() + 1);
    // The field, not breakdown(): that re-estimates every block.
    let system = engine.system_tokens();
    if system > 0 {
        out.push(Item {
            kind: Kind::System,
            uuid: Uuid(String::new()),
            tokens: system,
            label: "system prompt".to_owned(),
            replaces: Vec::new(),
            reduced: false,
            preserved: false,
            thinking: Vec::new(),
        });
    }
    for entry in engine.view().entries() {
        let m = entry.message.as_ref();
        let (kind, replaces) = match &entry.source {
            Source::Summary { replaces } => (Kind::Summary, replaces.clone()),
            Source::Collapse { replaces } => (Kind::Collapse, replaces.clone()),
            Source::Attachment => (Kind::Attachment, Vec::new()),
            Source::Stored => {
                let tool_result = m
                    .content
                    .blocks()
                    .iter()
                    .any(|b| matches!(b, Block::ToolResult { .. }));
                let kind = match m.role {
                    Role::User if tool_result => Kind::ToolResult,
                    Role::User => Kind::User,
                    _ => Kind::Assistant,
                };
                (kind, Vec::new())
            }
        };
        out.push(Item {
            kind,
            uuid: m.uuid.clone(),
            tokens: entry.tokens,
            label: labels.of(&entry.message),
            replaces,
            reduced: !entry.settled_blocks.is_empty(),
            preserved: matches!(entry.source, Source::Stored) && preserved.contains(&m.uuid),
            thinking: match (&entry.source, engine.store().get(&m.uuid)) {
                (Source::Stored, Some(original)) => thoughts(original, m, stale),
                _ => Vec::new(),
            },
        });
    }
    out
}

const LABEL_CHARS: usize = 90;

/// A short description of a message: its first text, or its tools. Reads
/// only as much of each text as the label shows (texts can be long).
pub fn label(m: &compaction_core::message::Message) -> String {
    let mut out = String::new();
    // Characters in `out`, counted as they are pushed (not again per word).
    let mut n = 0;
    let push = |part: &str, out: &mut String, n: &mut usize| {
        if part.is_empty() {
            return;
        }
        if !out.is_empty() {
            out.push_str(" · ");
            *n += 3;
        }
        for word in part.split_whitespace() {
            if *n > LABEL_CHARS {
                break;
            }
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
                *n += 1;
            }
            out.push_str(word);
            *n += word.chars().count();
        }
    };
    let mut parts = 0;
    match &m.content {
        compaction_core::message::Content::Text(text) => push(text, &mut out, &mut n),
        compaction_core::message::Content::Blocks(blocks) => {
            for block in blocks {
                match block {
                    Block::Text { text, .. } => push(text, &mut out, &mut n),
                    Block::ToolUse { name, input, .. } => {
                        let path = ["file_path", "path", "command"]
                            .iter()
                            .find_map(|key| input.str_field(key));
                        match path {
                            Some(p) => push(&format!("{name} {p}"), &mut out, &mut n),
                            None => push(name, &mut out, &mut n),
                        }
                    }
                    Block::ToolResult { .. } => push("tool result", &mut out, &mut n),
                    _ => continue,
                }
                parts += 1;
                if parts == 3 || n > LABEL_CHARS {
                    break;
                }
            }
        }
    }
    if n > LABEL_CHARS {
        let cut: String = out.chars().take(LABEL_CHARS - 1).collect();
        format!("{}…", cut.trim_end())
    } else {
        out
    }
}
