//! An imported session walked request by request: what request `at` of
//! its timeline held, as the engine counts it. The era's opening (the real
//! summary and preserved tail its boundary left, as the engine assembled
//! them: [`Timeline::opening`], laid out once on import), then the era's messages up to the request,
//! with the client's recorded microcompactions applied, appended to an
//! engine as a resume would; the view is then the request, split into the
//! strip's parts. The file's reported usage says what the request cost;
//! what it counts beyond the messages is what the host sent outside them
//! (system prompt, tools, CLAUDE.md), which a session file does not record.
//!
//! A long era is appended a slice at a time ([`Walking::step`]), so that a
//! page can yield between slices.

use compaction_core::hash::HashSet;
use std::sync::Arc;

use serde::Serialize;

use compaction_core::engine::{Engine, EngineSettings};
use compaction_core::error::Error;
use compaction_core::message::{Content, Message, Role, Uuid};
use compaction_core::transcript::replay::Timeline;
use compaction_core::transcript::{Era, Transcript};

use super::request::{entries, segments, Part, Segment};

/// What one request of an imported session held.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRequest {
    /// Its index among the timeline's requests.
    pub at: usize,
    /// The assistant message that answered it.
    pub uuid: Uuid,
    /// The prompt tokens its usage reports (input + cache), if any.
    pub reported: Option<u64>,
    /// The engine's count of its messages (the sum of the message parts).
    pub counted: u64,
    /// Its parts in order: what the host sent outside the messages (the
    /// reported count less the messages', when the file reports more),
    /// then the summary, the preserved tail and the messages since, or the
    /// conversation when no compaction came before.
    pub segments: Vec<Segment>,
    /// Messages in it.
    pub messages: usize,
    /// The compaction its era opens with, if any.
    pub opening: Option<Opening>,
    /// The first request after that compaction.
    pub at_boundary: bool,
}

/// A real compaction as the next request saw it: the boundary, its
/// summary and the messages it kept verbatim.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Opening {
    /// The `compact_boundary` record's uuid.
    pub boundary: Uuid,
    /// Its 1-based line in the file.
    pub line: u32,
    /// `manual` or `auto`, as written.
    pub trigger: Option<String>,
    /// `preTokens`, as written.
    pub pre_tokens: Option<u64>,
    /// `postTokens`, as written (newer clients).
    pub post_tokens: Option<u64>,
    /// The summary's text.
    pub summary: String,
    /// The engine's tokens for the summary.
    pub summary_tokens: u64,
    /// The messages kept verbatim after it, in order.
    pub preserved: Vec<Kept>,
}

/// A preserved message, as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Kept {
    /// Its uuid.
    pub uuid: Uuid,
    /// `user` or `assistant`.
    pub role: &'static str,
    /// The engine's tokens for it.
    pub tokens: u64,
    /// Its first line of text, or what its blocks are.
    pub text: String,
}

/// Where request `at` stands in a timeline: its era, the era's first
/// timeline message, and the timeline message answering it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The era (index into [`Timeline::eras`] and [`Transcript::eras`]).
    pub era: usize,
    /// Index into [`Timeline::actual`] of the boundary opening the era.
    pub boundary: Option<usize>,
    /// The era's first timeline message.
    pub start: usize,
    /// The timeline message answering the request.
    pub answer: usize,
    /// The first request of the era.
    pub first: bool,
}

/// Where request `at` stands (`None`: the timeline has fewer requests).
pub fn place(timeline: &Timeline, at: usize) -> Option<Place> {
    let mut start = 0;
    let mut seen = 0;
    for (era, (boundary, messages)) in timeline.eras().enumerate() {
        let mut first = true;
        for (i, (m, _)) in messages.iter().enumerate() {
            if m.role != Role::Assistant {
                continue;
            }
            if seen == at {
                return Some(Place {
                    era,
                    boundary,
                    start,
                    answer: start + i,
                    first,
                });
            }
            seen += 1;
            first = false;
        }
        start += messages.len();
    }
    None
}

/// Request `at` of an imported session being laid out: the engine fed the
/// era's opening, then its messages a slice at a time.
pub struct Walking {
    engine: Engine,
    at: usize,
    place: Place,
    /// The next timeline message to append.
    next: usize,
    /// The next recorded microcompaction.
    microcompaction: usize,
    preserved: HashSet<Uuid>,
    opening: Option<Opening>,
}

impl Walking {
    /// Starts request `at` of `transcript` (`timeline` is its timeline,
    /// `opened` what its era opens with, [`Walking::opened`], needed only when the request's era
    /// opens with a compaction). The engine counts with `settings`; the
    /// results the client cleared are cleared as recorded, none by rule.
    /// `None` when the timeline has no request `at`.
    pub fn new(
        transcript: &Transcript,
        timeline: &Timeline,
        opened: Option<&Opened>,
        mut settings: EngineSettings,
        at: usize,
    ) -> Result<Option<Walking>, Error> {
        let Some(place) = place(timeline, at) else {
            return Ok(None);
        };
        settings.microcompact.eligible_tools.clear();
        let mut engine = Engine::new(settings)?;
        let mut preserved = HashSet::default();
        let mut opening = None;
        let b = place.boundary.and_then(|b| transcript.boundaries.get(b));
        let opened = opened.filter(|o| b.is_some_and(|b| b.uuid == o.boundary));
        if let (Some(b), Some(opened)) = (b, opened) {
            let mut summary = None;
            let mut kept = Vec::new();
            for (m, opens) in &opened.messages {
                let appended = if *opens == Opens::Summary {
                    summary = Some(m.content.clone());
                    engine.append_summary((**m).clone())
                } else {
                    let mut m = (**m).clone();
                    m.usage = None;
                    engine.append(m)
                };
                if *opens == Opens::Preserved {
                    preserved.insert(m.uuid.clone());
                }
                match appended {
                    Ok(()) | Err(Error::DuplicateUuid { .. }) => {}
                    Err(other) => return Err(other),
                }
                if let Some(e) = engine
                    .view()
                    .entries()
                    .last()
                    .filter(|_| *opens != Opens::Summary)
                {
                    if preserved.contains(&e.message.uuid) {
                        kept.push(Kept {
                            uuid: e.message.uuid.clone(),
                            role: role_name(e.message.role),
                            tokens: e.tokens,
                            text: first_line(&e.message.content),
                        });
                    }
                }
            }
            let summary_tokens = engine.view().entries().first().map_or(0, |e| e.tokens);
            let metadata = b.metadata.as_ref();
            opening = Some(Opening {
                boundary: b.uuid.clone(),
                line: b.line,
                trigger: b.trigger().map(str::to_owned),
                pre_tokens: b.pre_tokens(),
                post_tokens: metadata.and_then(|m| m.post_tokens),
                summary: summary.map(|c| text_of(&c)).unwrap_or_default(),
                summary_tokens,
                preserved: kept,
            });
        }
        let microcompaction = timeline
            .microcompactions()
            .take_while(|(before, _)| *before < place.start)
            .count();
        Ok(Some(Walking {
            engine,
            at,
            next: place.start,
            place,
            microcompaction,
            preserved,
            opening,
        }))
    }

    /// Whether an engine starts with `settings`' lines: the error
    /// [`Walking::new`] gives when not. A request laid out depends on its
    /// lines (window, output reserve, override, margins) for that only: it
    /// makes no decision, and its parts are the messages' estimates, not
    /// the calibrated count (nor where calibration starts, which the
    /// window moves). A page need not lay it out again when only they
    /// change.
    pub fn starts(settings: &EngineSettings) -> Result<(), Error> {
        compaction_core::thresholds::Thresholds::compute(&settings.thresholds).map(drop)
    }

    /// What request `at`'s era opens with (`None`: no compaction): for
    /// the last era, from the resumed view (only that era is walked); for
    /// an earlier one, or when the resume opens elsewhere, as the timeline
    /// holds it ([`Timeline::opening`]: the history is not walked again).
    pub fn opened(transcript: &Transcript, timeline: &Timeline, at: usize) -> Option<Opened> {
        let p = place(timeline, at)?;
        let boundary = &transcript.boundaries.get(p.boundary?)?.uuid;
        if p.era + 1 == timeline.eras().count() {
            if let Some(o) = Opened::resumed(transcript).filter(|o| o.boundary == *boundary) {
                return Some(o);
            }
        }
        Opened::of_timeline(timeline, p.era)
    }

    /// Appends up to `budget` more messages; true once the request stands.
    pub fn step(&mut self, timeline: &Timeline, budget: usize) -> Result<bool, Error> {
        // The era's messages, found once a slice.
        let messages = era_messages(timeline, self.place);
        let mut spent = 0;
        while self.next < self.place.answer {
            if spent >= budget {
                return Ok(false);
            }
            let ids: Vec<&[String]> = timeline
                .microcompactions()
                .skip(self.microcompaction)
                .take_while(|(before, _)| *before <= self.next)
                .map(|(_, ids)| ids)
                .collect();
            self.microcompaction += ids.len();
            for ids in ids {
                self.engine.clear_results_recorded(ids);
            }
            if let Some((m, _)) = messages.get(self.next - self.place.start) {
                // Shared, not copied: the timeline's own message.
                match self.engine.append_shared(Arc::clone(m)) {
                    Ok(()) | Err(Error::DuplicateUuid { .. }) => {}
                    Err(other) => return Err(other),
                }
            }
            self.next += 1;
            spent += 1;
        }
        Ok(true)
    }

    /// The request, laid out (whole once [`Walking::step`] said so).
    pub fn finish(self, timeline: &Timeline) -> SessionRequest {
        let answer = era_messages(timeline, self.place).get(self.place.answer - self.place.start);
        let uuid = answer.map_or_else(|| Uuid(String::new()), |(m, _)| m.uuid.clone());
        let reported = answer
            .and_then(|(m, _)| m.usage.as_ref())
            .map(|u| u.prompt_tokens())
            .filter(|&t| t > 0);
        let view = entries(&self.engine, &self.preserved);
        let messages: Vec<Segment> = segments(&[], &view, |_| super::Goes::Kept);
        let counted: u64 = messages.iter().map(|s| s.tokens).sum();
        let outside = reported.map_or(0, |r| r.saturating_sub(counted));
        let mut out = Vec::with_capacity(messages.len() + 1);
        if outside > 0 {
            out.push(Segment {
                part: Part::System,
                name: "system prompt, tools, CLAUDE.md".to_owned(),
                tokens: outside,
                messages: 0,
                goes: super::Goes::Kept,
            });
        }
        out.extend(messages);
        SessionRequest {
            at: self.at,
            uuid,
            reported,
            counted,
            segments: out,
            messages: self.engine.view().len(),
            opening: self.opening,
            at_boundary: self.place.first && self.place.boundary.is_some(),
        }
    }
}

/// What an era opens with, as the engine assembled it: the summary, any
/// re-attached context, the preserved messages, in order.
#[derive(Debug, Clone)]
pub struct Opened {
    /// The boundary that opens it.
    pub boundary: Uuid,
    /// Its messages, each with what it is.
    pub messages: Vec<(Arc<Message>, Opens)>,
}

/// What a message of an era's opening is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opens {
    /// The compaction's summary record.
    Summary,
    /// Context re-attached after the summary, before the preserved tail.
    Context,
    /// A message the compaction kept verbatim.
    Preserved,
}

impl Opened {
    /// Era `era`'s opening as the timeline holds it ([`Timeline::opening`]).
    pub fn of_timeline(timeline: &Timeline, era: usize) -> Option<Opened> {
        let o = timeline.opening(era)?;
        let boundary = o.boundary?.uuid.clone();
        let messages = (o.messages.iter().enumerate())
            .map(|(i, m)| {
                let opens = match i {
                    0 if o.summary => Opens::Summary,
                    _ if o.is_preserved(i) => Opens::Preserved,
                    _ => Opens::Context,
                };
                (Arc::clone(m), opens)
            })
            .collect();
        Some(Opened { boundary, messages })
    }

    /// Era `era`'s opening, from the engine's eras ([`Transcript::eras`]:
    /// the whole history walked).
    pub fn of_era(transcript: &Transcript, eras: &[Era], era: usize) -> Option<Opened> {
        let e = eras.get(era)?;
        let boundary = transcript.boundaries.get(e.boundary?)?.uuid.clone();
        let messages = e
            .messages
            .iter()
            .take(1 + e.context + e.preserved)
            .filter_map(|&m| transcript.messages.get(m))
            .enumerate()
            .map(|(i, m)| (Arc::clone(&m.message), opens(m, i > e.context)))
            .collect();
        Some(Opened { boundary, messages })
    }

    /// The last era's opening, from the resumed view (only that era is
    /// walked): `None` when the resume opens with no boundary.
    pub fn resumed(transcript: &Transcript) -> Option<Opened> {
        let r = transcript.resume();
        let boundary = r.boundary?.uuid;
        let end = r
            .messages
            .iter()
            .rposition(|m| m.preserved)
            .map_or(1, |i| i + 1)
            .min(r.messages.len());
        let messages = r
            .messages
            .into_iter()
            .take(end)
            .map(|m| {
                let opens = opens(&m, m.preserved);
                (m.message, opens)
            })
            .collect();
        Some(Opened { boundary, messages })
    }
}

/// What `m` is in an opening, `preserved` or not.
fn opens(m: &compaction_core::transcript::ImportedMessage, preserved: bool) -> Opens {
    match (m.is_compact_summary, preserved) {
        (true, _) => Opens::Summary,
        (false, true) => Opens::Preserved,
        (false, false) => Opens::Context,
    }
}

/// The messages of `place`'s era.
fn era_messages(timeline: &Timeline, place: Place) -> &[compaction_core::transcript::replay::Entry] {
    timeline.eras().nth(place.era).map_or(&[], |(_, m)| m)
}

/// Request `at` of `transcript`, laid out at once ([`Walking`]).
pub fn session_request(
    transcript: &Transcript,
    timeline: &Timeline,
    settings: EngineSettings,
    at: usize,
) -> Result<Option<SessionRequest>, Error> {
    let opened = Walking::opened(transcript, timeline, at);
    let Some(mut w) = Walking::new(transcript, timeline, opened.as_ref(), settings, at)? else {
        return Ok(None);
    };
    while !w.step(timeline, usize::MAX)? {}
    Ok(Some(w.finish(timeline)))
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::System => "system",
    }
}

/// The text of `content`, its text blocks joined.
fn text_of(content: &Content) -> String {
    match content {
        Content::Text(t) => t.clone(),
        Content::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                compaction_core::message::Block::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// A message's first line of text (at most 120 characters), or what its
/// blocks are when it has no text.
fn first_line(content: &Content) -> String {
    let text = text_of(content);
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if !line.is_empty() {
        return line.chars().take(120).collect();
    }
    match content {
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|b| match b {
                compaction_core::message::Block::ToolUse { name, .. } => format!("tool_use {name}"),
                compaction_core::message::Block::ToolResult { .. } => "tool_result".to_owned(),
                _ => "block".to_owned(),
            })
            .collect::<Vec<_>>()
            .join(", "),
        Content::Text(_) => String::new(),
    }
}
