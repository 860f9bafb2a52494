//! The session file a host persists as it goes (R11): one record per
//! message it appended, a compaction's records as [`compaction_records`](super::export::compaction_records)
//! writes them, each chained to the one before, and the uuids given to
//! messages that came without one. Every front door writes them through
//! this one log, so the package and the CLI make the same uuids and records.
//! An expanded compaction is a record too ([`SessionLog::expanded`]), so a
//! resume of the file is the live view after it.

use serde::{Deserialize, Serialize};

use super::expand::{
    collapse_expanded_record, collapsed_record, expanded_record, pinned_record, snipped_record,
};
use super::export::{records_after, RecordContext};
use crate::api::body::once;
use crate::compact::boundary::RecordShape;
use crate::compact::Compacted;
use crate::engine::ViewEvent;
use crate::hash::HashMap;
use crate::message::{Content, Message, Role, Text, Usage, Uuid};
use crate::store::Store;
use crate::time::Timestamp;

/// Makes uuids for messages that come without one: `m1`, `m2`, … skipping
/// any the store holds already.
#[derive(Debug, Default, Clone)]
pub struct UuidMaker {
    /// The last `n` made or followed (the importer reads it to find a
    /// file's highest, [`Transcript::last_made_uuid`](super::Transcript::last_made_uuid)).
    pub(super) next: u64,
}

impl UuidMaker {
    /// Makes the next uuids come after `uuid` when it is one of ours
    /// (`m<n>`): a resumed session's file holds the earlier ones, even those
    /// no longer in the view (the file's highest is
    /// [`Transcript::last_made_uuid`](super::Transcript::last_made_uuid)).
    ///
    /// Numbers above [`UuidMaker::FOLLOWED`] are not followed: counting from
    /// one, the maker never reaches them, and following one would leave it no
    /// room to count on (at `u64::MAX` every next uuid would be the same).
    pub fn follow(&mut self, uuid: &str) {
        if let Some(n) = uuid.strip_prefix('m').and_then(|n| n.parse::<u64>().ok()) {
            if n <= Self::FOLLOWED {
                self.next = self.next.max(n);
            }
        }
    }

    /// The highest `m<n>` followed: 2⁵³, the largest count a JavaScript
    /// number holds exactly. The maker then has 2⁶⁴ − 2⁵³ uuids to count.
    pub const FOLLOWED: u64 = 1 << 53;

    /// The next free uuid (`taken` says whether the store holds one already).
    /// Every round makes a new number, so the loop ends after at most as many
    /// rounds as the store holds uuids, plus one.
    pub fn make(&mut self, taken: impl Fn(&Uuid) -> bool) -> Uuid {
        loop {
            self.next = self.next.wrapping_add(1);
            let uuid = Uuid(numbered('m', self.next));
            if !taken(&uuid) {
                return uuid;
            }
        }
    }
}

/// `prefix` then `n` in decimal, without the formatting machinery (one
/// per appended message).
fn numbered(prefix: char, mut n: u64) -> String {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let mut out = String::with_capacity(prefix.len_utf8() + digits.len() - at);
    out.push(prefix);
    // ASCII digits: one copy, not a push per character (one per append).
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
    out
}

/// What the log holds, in order.
#[derive(Debug, Clone)]
enum Logged {
    /// A message the host appended (rendered from the store on demand).
    Message { uuid: Uuid, parent: Option<Uuid> },
    /// Records written whole (a compaction's boundary, summary, attachments).
    Lines(Vec<String>),
}

/// A compaction the log wrote: its summary (the key `expand` takes), its
/// boundary, and the message records it wrote (summary, attachments).
#[derive(Debug, Clone)]
struct Written {
    summary: Uuid,
    boundary: Uuid,
    messages: Vec<Uuid>,
}

/// A written record's uuid and parent.
struct Ids {
    uuid: Option<String>,
    parent_uuid: Option<String>,
}

/// Read as `derive(Deserialize)` read it (an object whose `uuid` and
/// `parentUuid` are each given at most once, other keys ignored, or an
/// array of the two), through the readers the request body's visitors
/// already are: no struct visitor of its own in the wasm module.
impl<'de> Deserialize<'de> for Ids {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Ids;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("struct Ids")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Ids, A::Error> {
                let mut next = |at| {
                    seq.next_element()?
                        .ok_or_else(|| serde::de::Error::invalid_length(at, &"struct Ids with 2 elements"))
                };
                Ok(Ids {
                    uuid: next(0)?,
                    parent_uuid: next(1)?,
                })
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Ids, A::Error> {
                let (mut uuid, mut parent_uuid) = (None, None);
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    match &*key {
                        "uuid" => once(&mut map, &mut uuid, "uuid")?,
                        "parentUuid" => once(&mut map, &mut parent_uuid, "parentUuid")?,
                        _ => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(Ids {
                    uuid: uuid.flatten(),
                    parent_uuid: parent_uuid.flatten(),
                })
            }
        }
        deserializer.deserialize_struct("Ids", &["uuid", "parentUuid"], V)
    }
}

/// A session's records as the host appends and the engine compacts.
#[derive(Debug, Clone)]
pub struct SessionLog {
    /// The uuids for messages that come without one.
    pub uuids: UuidMaker,
    items: Vec<Logged>,
    taken: usize,
    /// The last record written (the next one's `parentUuid`).
    parent: Option<Uuid>,
    session_id: String,
    /// The compactions written, for [`SessionLog::expanded`].
    written: Vec<Written>,
    /// The collapses written (summary, what it removed), for
    /// [`SessionLog::expanded`].
    collapses: Vec<(Uuid, Vec<Uuid>)>,
}

impl SessionLog {
    /// An empty log for the session `session_id`.
    pub fn new(session_id: String) -> Self {
        SessionLog {
            uuids: UuidMaker::default(),
            items: Vec::new(),
            taken: 0,
            parent: None,
            session_id,
            written: Vec::new(),
            collapses: Vec::new(),
        }
    }

    /// The session id records carry.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The last record written: the next one's `parentUuid`.
    pub fn parent(&self) -> Option<&Uuid> {
        self.parent.as_ref()
    }

    /// Records that the host appended the message `uuid` (now in the store).
    pub fn appended(&mut self, uuid: Uuid) {
        let parent = self.parent.replace(uuid.clone());
        self.items.push(Logged::Message { uuid, parent });
    }

    /// Writes a finished compaction's records (R7.9) with `timestamp`, the
    /// restored `attachments` chained after its summary, and returns them.
    pub fn compacted(
        &mut self,
        result: &Compacted,
        attachments: &[Message],
        timestamp: Timestamp,
    ) -> Vec<String> {
        let ctx = self.context(timestamp);
        // The boundary follows the last record written, as Claude Code's
        // do: after an expansion that is its record, not the view's last
        // message, and the history must go through it (R11.5).
        let logical_parent = self
            .parent
            .as_ref()
            .or(result.boundary.logical_parent_uuid.as_ref());
        let meta = &result.boundary.compact_metadata;
        let all_kept = match meta.shape {
            RecordShape::Spec => Vec::new(),
            RecordShape::Client2_1_170 => self.kept_records(&meta.preserved_messages),
        };
        let records = records_after(
            result,
            attachments,
            &ctx,
            logical_parent.map(Uuid::as_str),
            &all_kept,
        );
        self.written.push(Written {
            summary: result.summary.uuid.clone(),
            boundary: result.boundary.uuid.clone(),
            messages: std::iter::once(&result.summary.uuid)
                .chain(attachments.iter().map(|m| &m.uuid))
                .cloned()
                .collect(),
        });
        self.parent = Some(
            attachments
                .last()
                .map(|m| m.uuid.clone())
                .unwrap_or_else(|| result.summary.uuid.clone()),
        );
        self.items.push(Logged::Lines(records.clone()));
        records
    }

    /// Writes the record of an expanded compaction (SPEC R11.5) or collapse
    /// (R11.6): `summary` is the summary `expand` took. Returns it, or `None`
    /// when the log wrote neither with that summary (one read from a
    /// resumed file).
    pub fn expanded(&mut self, summary: &Uuid, timestamp: Timestamp) -> Option<String> {
        if let Some(at) = self.collapses.iter().position(|(s, _)| s == summary) {
            let (summary, restored) = self.collapses.remove(at);
            let ctx = self.context(timestamp);
            let (uuid, line) = collapse_expanded_record(&summary, &restored, self.parent.as_ref(), &ctx);
            self.parent = Some(uuid);
            self.items.push(Logged::Lines(vec![line.clone()]));
            return Some(line);
        }
        let at = self.written.iter().position(|w| &w.summary == summary)?;
        let w = self.written.remove(at);
        let ctx = self.context(timestamp);
        let (uuid, line) = expanded_record(&w.boundary, &w.messages, self.parent.as_ref(), &ctx);
        self.parent = Some(uuid);
        self.items.push(Logged::Lines(vec![line.clone()]));
        Some(line)
    }

    /// Writes the record of a pin (`pinned`) or an unpin of the message
    /// `uuid` (SPEC R11.6), chained after the last record, and returns it.
    pub fn pinned(&mut self, uuid: &Uuid, pinned: bool, timestamp: Timestamp) -> String {
        let ctx = self.context(timestamp);
        let (record, line) = pinned_record(uuid, pinned, self.parent.as_ref(), &ctx);
        self.parent = Some(record);
        self.items.push(Logged::Lines(vec![line.clone()]));
        line
    }

    /// Writes the record of what `engine`'s count rests on (SPEC R11.6,
    /// `count_calibrated`) when it changed since `last` (which it updates),
    /// chained after the last record, and returns it. A host calls it after
    /// every change to the engine, so a resume counts as the engine does:
    /// when nothing changed it allocates nothing, and `timestamp` (the
    /// record's time) is asked for only when a record is written.
    pub fn count_changed(
        &mut self,
        engine: &crate::engine::Engine,
        last: &mut crate::view::Counting,
        timestamp: impl FnOnce() -> Timestamp,
    ) -> Option<String> {
        if engine.counting_is(last) {
            return None;
        }
        let now = engine.counting();
        let after = engine.view().entries().last().map(|e| &e.message.uuid);
        let ctx = self.context(timestamp());
        let (record, line) = super::counted::counted_record(&now, after, self.parent.as_ref(), &ctx);
        self.parent = Some(record);
        self.items.push(Logged::Lines(vec![line.clone()]));
        *last = now;
        Some(line)
    }

    /// Writes the records of a snip or collapse (SPEC R11.6), chained after
    /// the last record: a snip's `history_snipped`; a collapse's
    /// `history_collapsed`, then its summary's message record. Returns them.
    pub fn view_event(&mut self, event: &ViewEvent, timestamp: Timestamp) -> Vec<String> {
        let ctx = self.context(timestamp);
        let mut lines = Vec::new();
        match event {
            ViewEvent::Snipped { removed } if !removed.is_empty() => {
                let (uuid, line) = snipped_record(removed, self.parent.as_ref(), &ctx);
                self.parent = Some(uuid);
                lines.push(line);
            }
            ViewEvent::Snipped { .. } => {}
            ViewEvent::Collapsed {
                removed,
                summary,
                after,
            } => {
                let (uuid, line) =
                    collapsed_record(removed, &summary.uuid, after.as_ref(), self.parent.as_ref(), &ctx);
                lines.push(line);
                if let Some(line) = self.render_message(summary, Some(&uuid)) {
                    lines.push(line);
                }
                self.parent = Some(summary.uuid.clone());
                self.collapses.push((summary.uuid.clone(), removed.clone()));
            }
        }
        if !lines.is_empty() {
            self.items.push(Logged::Lines(lines.clone()));
        }
        lines
    }

    /// Every record from the first `kept` message to the last: each kept
    /// message, and the records this log chained between two consecutive
    /// ones (a pin's, a snip's), as Claude Code 2.1.170's `allUuids` lists
    /// its stop hooks'. A kept message the log did not write (one read from
    /// a resumed file) is listed alone.
    fn kept_records(&self, kept: &[Uuid]) -> Vec<Uuid> {
        let Some(first) = kept.first() else {
            return Vec::new();
        };
        let start = self
            .items
            .iter()
            .rposition(|item| matches!(item, Logged::Message { uuid, .. } if uuid == first))
            .unwrap_or(self.items.len());
        // Each record's parent from the first kept message on, and which of
        // them are messages: a list, found by uuid through the map type the
        // store's index already is (one hash-table type fewer in the wasm
        // module than a map keyed by `Uuid`).
        let mut nodes: Vec<(Option<Uuid>, bool)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::default();
        let mut note = |uuid: &str, node: (Option<Uuid>, bool)| {
            index.insert(uuid.to_owned(), nodes.len());
            nodes.push(node);
        };
        for item in &self.items[start..] {
            match item {
                Logged::Message { uuid, parent } => note(uuid.as_str(), (parent.clone(), true)),
                Logged::Lines(lines) => {
                    for ids in lines.iter().filter_map(|l| serde_json::from_str::<Ids>(l).ok()) {
                        if let Some(uuid) = ids.uuid {
                            note(&uuid, (ids.parent_uuid.map(Uuid), false));
                        }
                    }
                }
            }
        }
        let parent_of = |uuid: &Uuid| index.get(uuid.as_str()).and_then(|&at| nodes.get(at));
        let mut out = vec![first.clone()];
        for pair in kept.windows(2) {
            let [before, this] = pair else { continue };
            // Walk back from `this` over records that are no message.
            let mut between = Vec::new();
            let mut at = parent_of(this).and_then(|(p, _)| p.clone());
            while let Some(uuid) = at.take() {
                match parent_of(&uuid) {
                    Some((parent, false)) if between.len() < index.len() => {
                        at = parent.clone();
                        between.push(uuid);
                    }
                    _ if &uuid == before => {
                        out.extend(between.drain(..).rev());
                    }
                    _ => {}
                }
            }
            out.push(this.clone());
        }
        out
    }

    fn context(&self, timestamp: Timestamp) -> RecordContext {
        RecordContext {
            session_id: self.session_id.clone(),
            version: "context-compaction".to_owned(),
            timestamp,
        }
    }

    /// Continues a resumed file (R11.2): new records chain after `leaf`, in
    /// the file's session (when it names one), with uuids it does not hold.
    pub fn resumed<'a>(
        &mut self,
        uuids: impl IntoIterator<Item = &'a str>,
        leaf: Option<String>,
        session_id: Option<String>,
    ) {
        for uuid in uuids {
            self.uuids.follow(uuid);
        }
        if let Some(leaf) = &leaf {
            self.uuids.follow(leaf);
        }
        self.parent = leaf.map(Uuid);
        if let Some(id) = session_id {
            self.session_id = id;
        }
    }

    /// Every record so far, in order (messages rendered from `store`).
    pub fn records(&self, store: &Store) -> Vec<String> {
        self.records_from(store, 0)
    }

    /// The records written since the last [`SessionLog::take`], and marks
    /// them taken.
    pub fn take(&mut self, store: &Store) -> Vec<String> {
        let out = self.records_from(store, self.taken);
        self.taken = self.items.len();
        out
    }

    fn records_from(&self, store: &Store, from: usize) -> Vec<String> {
        let mut out = Vec::new();
        for item in self.items.get(from..).unwrap_or_default() {
            match item {
                Logged::Message { uuid, parent } => {
                    if let Some(line) = self.render(store, uuid, parent.as_ref()) {
                        out.push(line);
                    }
                }
                Logged::Lines(lines) => out.extend(lines.iter().cloned()),
            }
        }
        out
    }

    /// One record for a message the host appended, in Claude Code's shape.
    fn render(&self, store: &Store, uuid: &Uuid, parent: Option<&Uuid>) -> Option<String> {
        self.render_message(store.get(uuid)?, parent)
    }

    /// One record for a message, in Claude Code's shape.
    fn render_message(&self, m: &Message, parent: Option<&Uuid>) -> Option<String> {
        let record = Record {
            is_sidechain: false,
            message: Payload {
                id: (m.role == Role::Assistant).then_some(m.uuid.as_str()),
                content: &m.content,
                role: m.role,
                usage: m.usage.as_deref(),
            },
            parent_uuid: parent,
            session_id: &self.session_id,
            timestamp: m.timestamp.as_ref().map(Timestamp::as_str),
            kind: m.role,
            user_type: "external",
            uuid: &m.uuid,
        };
        crate::message::to_json_string(&record).ok()
    }
}

/// A record for a message the host appended (keys in the order Claude
/// Code's files have them).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Record<'a> {
    is_sidechain: bool,
    message: Payload<'a>,
    parent_uuid: Option<&'a Uuid>,
    session_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'a str>,
    #[serde(rename = "type")]
    kind: Role,
    user_type: &'static str,
    uuid: &'a Uuid,
}

/// A record's `message`: the API payload.
#[derive(Serialize)]
struct Payload<'a> {
    /// An assistant message's response id: its uuid. The importer merges
    /// assistant lines that share one (a streamed response written as
    /// several lines) and chained assistant lines with none (exports that
    /// drop it); each message the host appended is one response of its own,
    /// so two appended in a row must resume as two.
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    content: &'a Content,
    role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<&'a Usage>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived impl `Ids` had, to compare against (of the same name:
    /// its messages name the type).
    mod derived {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct Ids {
            pub uuid: Option<String>,
            pub parent_uuid: Option<String>,
        }
    }

    #[test]
    fn ids_read_and_refuse_what_the_derived_impl_did() {
        let cases = [
            r#"{"uuid":"a","parentUuid":"b","type":"system"}"#,
            r#"{"parentUuid":null,"uuid":"a"}"#,
            r#"{}"#,
            r#"{"uuid":null}"#,
            r#"{"uuid":"a","uuid":"b"}"#,
            r#"{"uuid":null,"uuid":"b"}"#,
            r#"{"parentUuid":"a","parentUuid":null}"#,
            r#"{"uuid":7}"#,
            r#"{"uuid":"a","message":{"uuid":"x","content":[1,{"b":null}]}}"#,
            r#"{"u\u0075id":"\u0061"}"#,
            r#"["a","b"]"#,
            r#"[null,"b"]"#,
            r#"["a"]"#,
            r#"[]"#,
            r#"["a","b","c"]"#,
            r#""a""#,
            r#"null"#,
            r#"{"uuid":"a"} x"#,
            r#"{"uuid":"a",}"#,
            r#"{"uuid":"a""#,
        ];
        for text in cases {
            let ours = serde_json::from_str::<Ids>(text)
                .map(|i| (i.uuid, i.parent_uuid))
                .map_err(|e| e.to_string());
            let derived = serde_json::from_str::<derived::Ids>(text)
                .map(|i| (i.uuid, i.parent_uuid))
                .map_err(|e| e.to_string());
            assert_eq!(ours, derived, "{text}");
            // Through serde_json's `Value` too.
            let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
                continue;
            };
            let ours = serde_json::from_value::<Ids>(value.clone())
                .map(|i| (i.uuid, i.parent_uuid))
                .map_err(|e| e.to_string());
            let derived = serde_json::from_value::<derived::Ids>(value)
                .map(|i| (i.uuid, i.parent_uuid))
                .map_err(|e| e.to_string());
            assert_eq!(ours, derived, "{text} as a Value");
        }
    }

    #[test]
    fn records_chain_each_message_to_the_one_before_and_take_hands_out_only_new_ones() {
        let mut store = Store::new();
        let mut log = SessionLog::new("s1".into());
        for m in [Message::user("a", "hi"), Message::assistant("b", "hello")] {
            let uuid = m.uuid.clone();
            store.append(m).unwrap();
            log.appended(uuid);
        }
        let first = log.take(&store);
        assert_eq!(first.len(), 2);
        let second: serde_json::Value = serde_json::from_str(&first[1]).unwrap();
        assert_eq!(second["parentUuid"], "a");
        assert_eq!(second["sessionId"], "s1");
        assert_eq!(second["type"], "assistant");
        assert!(log.take(&store).is_empty());
        assert_eq!(log.records(&store).len(), 2);
    }

    #[test]
    fn made_uuids_skip_taken_ones_and_follow_a_resumed_file() {
        let mut log = SessionLog::new("s".into());
        log.resumed(["m7", "x"], Some("m9".into()), Some("file-session".into()));
        assert_eq!(log.session_id(), "file-session");
        assert_eq!(log.uuids.make(|u| u.as_str() == "m10").as_str(), "m11");
        let mut store = Store::new();
        store.append(Message::user("m11b", "x")).unwrap();
        log.appended(Uuid("m11b".into()));
        let r: serde_json::Value = serde_json::from_str(&log.records(&store)[0]).unwrap();
        assert_eq!(r["parentUuid"], "m9");
    }

    #[test]
    fn numbered_writes_what_format_writes() {
        for n in [
            0,
            1,
            9,
            10,
            99,
            100,
            12_345,
            u64::from(u32::MAX),
            (1 << 53) + 1,
            u64::MAX,
        ] {
            assert_eq!(numbered('m', n), format!("m{n}"));
        }
    }

    #[test]
    fn a_file_holding_the_largest_number_leaves_the_maker_counting() {
        let mut log = SessionLog::new("s".into());
        log.resumed(
            ["m18446744073709551615"],
            Some("m18446744073709551615".into()),
            None,
        );
        let taken = |u: &Uuid| u.as_str() == "m18446744073709551615";
        let first = log.uuids.make(taken);
        let second = log.uuids.make(taken);
        assert_ne!(first, second);
        assert!(!taken(&first) && !taken(&second));
    }
}
