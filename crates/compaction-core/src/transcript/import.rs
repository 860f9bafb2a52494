//! The streaming importer: bytes in, in chunks of any size; lines split,
//! parsed and folded into the kept model one at a time.

use std::collections::BTreeMap;

use crate::hash::{HashMap, HashSet};

use std::borrow::Cow;
use std::sync::Arc;

use super::chain::NodeKind;
use super::finishing::Finishing;
use super::kept::Shared;
use super::log::UuidMaker;
use super::model::{Boundary, Fields, ImportedMessage, Microcompaction, Transcript};
use super::record::{
    classify, node_of, short, type_label, BoundaryLine, Envelope, LineFields, LineMap, LineSeed, MessageLine,
    Record,
};
use super::{Problem, ProblemKind};
use crate::message::{Block, Content, Message, Role, Usage, Uuid};
use crate::time::Timestamp;

/// Reads a session file fed in chunks: [`Importer::feed`] as the bytes
/// arrive, then [`Importer::finish`]. Memory holds the kept model and at
/// most one partial line, never the file.
#[derive(Debug, Default)]
pub struct Importer {
    /// The start of a line whose end has not arrived yet.
    carry: Vec<u8>,
    /// Bytes fed so far.
    bytes: u64,
    transcript: Transcript,
    /// Open API responses: `message.id` → message index.
    responses: HashMap<String, usize>,
    /// The last assistant line without a `message.id` (normalized exports
    /// drop it): its message and uuid, to merge the next line chained to it.
    last_without_id: Option<(usize, Uuid)>,
    versions: Seen,
    sessions: Seen,
    /// Follows every record's uuid, for [`Transcript::last_made_uuid`].
    made: UuidMaker,
    /// Whether the file is a subagent's own transcript (`agent-*.jsonl`:
    /// its first conversation record is a sidechain record with an
    /// `agentId`), read as the session it is; `None` until that record.
    subagent: Option<bool>,
    /// The texts of the messages' uninterpreted fields, each kept once.
    shared: Shared,
    /// The file's size, when the host knows it ([`Importer::expect`]);
    /// taken once the indices are sized.
    expected: Option<u64>,
}

/// Bytes read before the indices are sized for the rest of the file
/// ([`Importer::expect`]): enough records to judge their size by.
const SAMPLE: u64 = 1 << 20;

/// Values of one string field seen so far; the last one is checked first,
/// since consecutive records nearly always repeat it.
#[derive(Debug, Default)]
struct Seen {
    last: String,
    all: HashSet<String>,
}

impl Seen {
    /// Adds a new value to `list`, in order of first appearance.
    fn note(&mut self, value: Option<Cow<'_, str>>, list: &mut Vec<String>) {
        let Some(value) = value else {
            return;
        };
        let value = value.as_ref();
        if value == self.last {
            return;
        }
        value.clone_into(&mut self.last);
        if self.all.insert(value.to_owned()) {
            list.push(value.to_owned());
        }
    }
}

impl Importer {
    /// An importer that has read nothing.
    pub fn new() -> Self {
        Importer::default()
    }

    /// Says how large the file is (a host reading a file in chunks knows):
    /// once its first MiB is read, the uuid indices are sized for as many
    /// records as the rest of the file likely holds at that rate, instead
    /// of rehashing every key at each doubling as they fill (a 1M-record
    /// file: 6 % of the reading, in the page). No effect on the result.
    pub fn expect(&mut self, bytes: u64) {
        self.expected = Some(bytes);
    }

    /// Bytes fed so far (for a host's progress display).
    pub fn bytes_fed(&self) -> u64 {
        self.bytes
    }

    /// Reads the next chunk. A line may span any number of chunks.
    pub fn feed(&mut self, chunk: &[u8]) {
        self.feed_parts(chunk, None);
    }

    /// [`Importer::feed`] for a chunk already known to be UTF-8 (a file
    /// read as text, a JS string): its lines are not checked again.
    pub fn feed_text(&mut self, chunk: &str) {
        self.feed_parts(chunk.as_bytes(), Some(chunk));
    }

    /// `text`, when given, is `chunk` as text.
    fn feed_parts(&mut self, chunk: &[u8], text: Option<&str>) {
        self.bytes = self.bytes.saturating_add(chunk.len() as u64);
        let mut at = 0;
        if !self.carry.is_empty() {
            let Some(end) = find_newline(chunk) else {
                self.carry.extend_from_slice(chunk);
                return;
            };
            self.carry.extend_from_slice(&chunk[..end]);
            let line = std::mem::take(&mut self.carry);
            self.line(&line, None, true);
            self.carry = line;
            self.carry.clear();
            at = end + 1;
        }
        while let Some(end) = chunk.get(at..).and_then(find_newline) {
            let (from, to) = (at, at + end);
            self.line(&chunk[from..to], text.and_then(|t| t.get(from..to)), true);
            at = to + 1;
        }
        self.carry.extend_from_slice(chunk.get(at..).unwrap_or_default());
        if self.bytes >= SAMPLE {
            self.size_indices();
        }
    }

    /// Sizes the uuid and response indices for the rest of the file
    /// ([`Importer::expect`]), once.
    fn size_indices(&mut self) {
        let Some(total) = self.expected.take() else {
            return;
        };
        // Rounded up: a little room to spare rather than one rehash more.
        let ratio = total.saturating_sub(self.bytes) / self.bytes.max(1) + 1;
        let more = |seen: usize| {
            let n = u64::try_from(seen).unwrap_or(u64::MAX).saturating_mul(ratio);
            usize::try_from(n).unwrap_or(usize::MAX)
        };
        let (nodes, responses) = (
            more(self.transcript.graph.nodes.len()),
            more(self.responses.len()),
        );
        self.transcript.graph.reserve(nodes);
        self.responses.reserve(responses);
    }

    /// Reads the last line (if the file does not end with a newline) and
    /// rebuilds the chain.
    pub fn finish(self) -> Transcript {
        let mut finishing = self.finishing();
        while !finishing.step() {}
        finishing.finish()
    }

    /// [`Importer::finish`] a pass at a time ([`Finishing`]): the last
    /// line is read now.
    pub fn finishing(mut self) -> Finishing {
        if !self.carry.is_empty() {
            let line = std::mem::take(&mut self.carry);
            self.line(&line, None, false);
        }
        Finishing::new(self.transcript)
    }

    fn problem(&mut self, line: u32, kind: ProblemKind, detail: impl Into<String>) {
        self.transcript.problems.push(Problem::new(line, kind, detail));
    }

    /// One line, without its `\n` (`text`: the same line, when it is known
    /// to be UTF-8); `terminated` is false for a last line the file did
    /// not end.
    fn line(&mut self, whole: &[u8], text: Option<&str>, terminated: bool) {
        let counts = &mut self.transcript.counts;
        counts.lines = counts.lines.saturating_add(1);
        let line = counts.lines;
        let end = whole.len() - usize::from(whole.ends_with(b"\r"));
        let start = if line == 1 && whole[..end].starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let raw = &whole[start..end];
        if raw.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        // The same cut of the text (a BOM and a `\r` end on char boundaries).
        let text = text.and_then(|t| t.get(start..end));
        let (fixed, lone) = crate::message::surrogates::replace_lone_surrogates(raw);
        if lone > 0 {
            self.problem(
                line,
                ProblemKind::LoneSurrogate,
                format!("{lone} lone surrogate escape(s) read as U+FFFD"),
            );
        }
        let raw: &[u8] = &fixed;
        let sidechains = self.subagent != Some(false);
        // A line of UTF-8 (checked once here) is read as text: serde_json
        // then checks no string again. Otherwise as bytes (the same result,
        // the error naming the first bad string).
        let text = match (&fixed, text) {
            (std::borrow::Cow::Borrowed(_), Some(text)) => Some(text),
            _ => std::str::from_utf8(raw).ok(),
        };
        let mut parsed = read_line(raw, text, sidechains, true);
        if matches!(&parsed, Ok(LineMap { again: true, .. }) | Err(_)) {
            parsed = read_line(raw, text, sidechains, false);
        }
        let record = match parsed {
            Ok(record) => record,
            Err(err) => {
                let (kind, what) = if !terminated {
                    (
                        ProblemKind::TruncatedLine,
                        "the last line has no newline and does not parse",
                    )
                } else if err.is_data() {
                    (ProblemKind::MalformedJson, "a record must be a json object")
                } else if std::str::from_utf8(raw).is_err() {
                    (ProblemKind::InvalidUtf8, "the line is not utf-8")
                } else {
                    (ProblemKind::MalformedJson, "the line is not json")
                };
                self.problem(line, kind, format!("{what} ({} bytes): {err}", raw.len()));
                return;
            }
        };
        self.record(line, record, raw);
    }

    /// One record; `raw` is its line, read again only to keep an invalid
    /// record verbatim.
    fn record(&mut self, line: u32, read: LineMap<'_>, raw: &[u8]) {
        let LineMap {
            fields: mut record,
            payload,
            ..
        } = read;
        let conversation = matches!(
            record.str_field("type").as_deref(),
            Some("user" | "assistant" | "system")
        );
        let sidechain = record.bool_field("isSidechain") == Some(true);
        if self.subagent.is_none() && conversation && record.get("uuid").is_some() {
            let subagent = sidechain && record.get("agentId").is_some();
            self.subagent = Some(subagent);
            self.transcript.subagent = subagent;
        }
        if sidechain && self.subagent == Some(true) {
            // A subagent's own records are its conversation: read as main.
            if let Ok(no) = serde_json::from_str::<&serde_json::value::RawValue>("false") {
                record.insert(Cow::Borrowed("isSidechain"), no);
            }
        }
        let map = &record;
        let counts = &mut self.transcript.counts;
        counts.records = counts.records.saturating_add(1);
        let first = counts.records == 1;
        count_type(&mut counts.record_types, map);
        if sidechain {
            counts.sidechain_records = counts.sidechain_records.saturating_add(1);
        }
        self.versions
            .note(map.str_field("version"), &mut self.transcript.versions);
        self.sessions
            .note(map.str_field("sessionId"), &mut self.transcript.sessions);
        match classify(record, payload, first) {
            Ok(Record::Message(m)) => self.message(line, m),
            Ok(Record::Boundary(b)) => self.boundary(line, b),
            Ok(Record::Microcompact(m)) => {
                let uuid = m.envelope.uuid.clone();
                if self.node(line, m.envelope, NodeKind::Other, false) {
                    self.transcript.microcompactions.push(Microcompaction {
                        uuid,
                        line,
                        trigger: m.trigger,
                        pre_tokens: m.pre_tokens,
                        tokens_saved: m.tokens_saved,
                        tool_ids: m.tool_ids,
                    });
                }
            }
            Ok(Record::Expanded(x)) => {
                let at = self.transcript.graph.expansions.len();
                if self.node(line, x.envelope, NodeKind::Expanded(at), false) {
                    self.transcript.graph.expansions.push(x.expansion);
                }
            }
            Ok(Record::Pinned(p)) => {
                if self.node(line, p.envelope, NodeKind::Pinned, false) {
                    self.transcript.pins.push((p.uuid, p.pinned));
                }
            }
            Ok(Record::Counted(c)) => {
                if self.node(line, c.envelope, NodeKind::Pinned, false) {
                    self.transcript.counted = Some(c.saved);
                    self.transcript.counted_line = line;
                }
            }
            Ok(Record::Node(n)) => {
                let sidechain = n.envelope.sidechain;
                if self.node(line, n.envelope, NodeKind::Other, sidechain) && !sidechain {
                    if let Some(call) = n.tool_call {
                        self.transcript.progress_calls.push((line, call));
                    }
                }
            }
            Ok(Record::Title | Record::Metadata) => {}
            Ok(Record::Header(map)) => self.transcript.header = Some(map),
            Ok(Record::Unknown { node, value }) => {
                let (kind, detail) = match value.get("type") {
                    Some(kind) => (
                        ProblemKind::UnknownType,
                        format!("unknown record `type` = {}; kept verbatim", short(kind)),
                    ),
                    None => (
                        ProblemKind::MissingType,
                        "a record without `type`; kept verbatim".to_owned(),
                    ),
                };
                self.problem(line, kind, detail);
                if let Some(n) = node {
                    let sidechain = n.envelope.sidechain;
                    self.node(line, n.envelope, NodeKind::Other, sidechain);
                }
                self.transcript.unknown_records.push((line, value));
            }
            Err((why, taken)) => {
                self.problem(
                    line,
                    ProblemKind::InvalidRecord,
                    crate::text::concat(&why, "; kept verbatim"),
                );
                // Fields were taken out while reading it: read it again whole.
                let value = serde_json::from_slice::<Fields>(raw).unwrap_or(taken);
                if let Some(n) = node_of(&value) {
                    let sidechain = n.envelope.sidechain;
                    self.node(line, n.envelope, NodeKind::Other, sidechain);
                }
                self.transcript.unknown_records.push((line, value));
            }
        }
    }

    /// Adds a graph node; reports and refuses a uuid seen before.
    fn node(&mut self, line: u32, envelope: Envelope, kind: NodeKind, sidechain: bool) -> bool {
        self.add_node(line, envelope.uuid, envelope.parent.as_ref(), kind, sidechain)
    }

    /// [`Importer::node`] of a record's uuid and parent.
    fn add_node(
        &mut self,
        line: u32,
        uuid: Uuid,
        parent: Option<&Uuid>,
        kind: NodeKind,
        sidechain: bool,
    ) -> bool {
        // The highest `m<n>` so far, as a resumed engine's maker reads it.
        let before = self.made.next;
        self.made.follow(uuid.as_str());
        if self.made.next > before {
            self.transcript.last_made_uuid = Some(uuid.clone());
        }
        let graph = &mut self.transcript.graph;
        match graph.add(uuid, parent, line, kind, sidechain) {
            Ok(()) => true,
            Err((first, uuid)) => {
                let detail = format!("`uuid` = {uuid} was first seen on line {first}; this copy is not kept");
                self.problem(line, ProblemKind::DuplicateUuid, detail);
                false
            }
        }
    }

    fn timestamp(&mut self, line: u32, text: Option<String>) -> Option<Timestamp> {
        let text = text?;
        match Timestamp::parse(&text) {
            Some(parsed) => Some(parsed),
            None => {
                self.problem(
                    line,
                    ProblemKind::InvalidTimestamp,
                    format!("`timestamp` = {text:?} is not rfc 3339; the record keeps no timestamp"),
                );
                None
            }
        }
    }

    fn message(&mut self, line: u32, mut m: MessageLine<'_>) {
        let uuid = m.envelope.uuid.clone();
        let parent = m.envelope.parent.take();
        let index = self.transcript.messages.len();
        let target = match (m.role, &m.message_id) {
            (Role::Assistant, Some(id)) => self.responses.get(id).copied(),
            (Role::Assistant, None) => self
                .last_without_id
                .as_ref()
                .filter(|(_, last)| Some(last) == parent.as_ref())
                .map(|(at, _)| *at),
            (Role::User | Role::System, _) => None,
        };
        let at = target.unwrap_or(index);
        let timestamp = m.envelope.timestamp.take();
        if !self.add_node(
            line,
            m.envelope.uuid,
            parent.as_ref(),
            NodeKind::Message(at),
            false,
        ) {
            return;
        }
        let timestamp = self.timestamp(line, timestamp);
        let t = &mut self.transcript;
        if m.role == Role::Assistant && m.message_id.is_none() {
            self.last_without_id = Some((at, uuid.clone()));
        }
        match target.and_then(|at| t.messages.get_mut(at)) {
            Some(into) => merge(into, uuid, m.content, m.usage),
            None => {
                if let Some(id) = &m.message_id {
                    if m.role == Role::Assistant {
                        self.responses.insert(id.clone(), index);
                    }
                }
                t.messages.push(ImportedMessage {
                    message: Arc::new(Message {
                        uuid,
                        role: m.role,
                        content: m.content,
                        timestamp,
                        usage: m.usage.map(Box::new),
                        extra: crate::message::Extra::new(),
                    }),
                    line,
                    parent_uuid: parent,
                    merged_uuids: Vec::new(),
                    message_id: m.message_id,
                    request_id: m.request_id,
                    is_meta: m.is_meta,
                    is_compact_summary: m.is_compact_summary,
                    is_api_error_message: m.is_api_error_message,
                    preserved: false,
                    extra: self.shared.keep(&m.extra),
                    message_extra: self.shared.own(&m.message_extra),
                });
            }
        }
    }

    fn boundary(&mut self, line: u32, b: BoundaryLine) {
        let at = self.transcript.boundaries.len();
        let uuid = b.envelope.uuid.clone();
        let mut envelope = b.envelope;
        let timestamp = envelope.timestamp.take();
        if !self.node(line, envelope, NodeKind::Boundary(at), false) {
            return;
        }
        let timestamp = self.timestamp(line, timestamp);
        if b.metadata.is_none() {
            self.problem(
                line,
                ProblemKind::MissingCompactMetadata,
                format!("boundary `{uuid}` has no `compactMetadata` object"),
            );
        }
        self.transcript.boundaries.push(Boundary {
            uuid,
            line,
            timestamp,
            logical_parent_uuid: b.logical_parent,
            logical_parent_found: false,
            metadata: b.metadata,
            summary_uuid: None,
            extra: b.extra,
        });
    }
}

/// Counts a record under its `type` (`system/<subtype>` for system
/// records), allocating only for a type not seen before.
fn count_type(counts: &mut BTreeMap<String, u32>, map: &LineFields<'_>) {
    let kind = map.str_field("type");
    let kind = match kind.as_deref() {
        Some("system") | None => None,
        Some(kind) => Some(kind),
    };
    match kind.and_then(|k| counts.get_mut(k)) {
        Some(n) => *n = n.saturating_add(1),
        None => *counts.entry(type_label(map)).or_default() += 1,
    }
}

/// One line read as a record; `text` is the line when it is UTF-8.
/// `payloads`: a conversation record's `message` read in the same pass
/// ([`LineMap`]).
fn read_line<'a>(
    raw: &'a [u8],
    text: Option<&'a str>,
    sidechains: bool,
    payloads: bool,
) -> serde_json::Result<LineMap<'a>> {
    let seed = LineSeed { sidechains, payloads };
    match text {
        Some(text) => {
            let mut de = serde_json::Deserializer::from_str(text);
            serde::de::DeserializeSeed::deserialize(seed, &mut de).and_then(|r| de.end().map(|()| r))
        }
        None => {
            let mut de = serde_json::Deserializer::from_slice(raw);
            serde::de::DeserializeSeed::deserialize(seed, &mut de).and_then(|r| de.end().map(|()| r))
        }
    }
}

/// The first `\n` in `bytes`, eight bytes at a time.
fn find_newline(bytes: &[u8]) -> Option<usize> {
    crate::message::scan::find_byte(bytes, b'\n')
}

/// The prompt-plus-output total ccusage compares snapshots by.
fn total(usage: &Usage) -> u64 {
    usage.prompt_tokens().saturating_add(usage.output_tokens)
}

/// Adds a later line of the same API response: its blocks (a block equal
/// to one already there is a compaction replay and adds nothing), its uuid,
/// and its usage if it is the largest snapshot.
fn merge(into: &mut ImportedMessage, uuid: Uuid, content: Content, usage: Option<Usage>) {
    into.merged_uuids.push(uuid);
    let message = into.message_mut();
    let incoming = match content {
        Content::Text(text) => vec![Block::text(text)],
        Content::Blocks(blocks) => blocks,
    };
    let blocks = match &mut message.content {
        Content::Blocks(blocks) => blocks,
        content @ Content::Text(_) => {
            let text = match std::mem::replace(content, Content::Blocks(Vec::new())) {
                Content::Text(text) => text,
                Content::Blocks(_) => String::new(),
            };
            *content = Content::Blocks(vec![Block::text(text)]);
            match content {
                Content::Blocks(blocks) => blocks,
                Content::Text(_) => return,
            }
        }
    };
    for block in incoming {
        if !blocks.contains(&block) {
            blocks.push(block);
        }
    }
    if let Some(usage) = usage {
        let bigger = message
            .usage
            .as_ref()
            .is_none_or(|now| total(&usage) > total(now));
        if bigger {
            message.usage = Some(Box::new(usage));
        }
    }
}
