//! How well a replay reproduces a session's real automatic compactions:
//! hits, misses, false positives and the token error (issue "Real Claude
//! Code sessions").
//!
//! Definitions (the CLI's `compaction fidelity` and the README use these):
//! - **records** are the messages of the session's timeline
//!   ([`Timeline`]): each user record, and each API response (its lines
//!   merged), of the logical history, without summaries and preserved
//!   copies.
//! - A **hit** is a real automatic boundary (`compactMetadata.trigger:
//!   "auto"`) with a predicted automatic compaction whose last record is one
//!   of the [`WINDOW_RECORDS`] records before the boundary and whose count
//!   is within [`TOLERANCE_PER_MILLE`] ‰ of the boundary's `preTokens`
//!   (when several are, the nearest to the boundary). Each prediction hits
//!   at most one boundary.
//! - A **miss** is a real automatic boundary without a hit.
//! - A **false positive** is a predicted compaction that hits no boundary
//!   (too early, too late, or too far off in tokens), except one at a real
//!   automatic boundary's own request (0 records before it): the client
//!   compacted there too, so that prediction is the boundary's miss, off in
//!   tokens (`offAtBoundary`), not a compaction the client did not make.
//! - The **token error** of a real automatic boundary is the hitting
//!   prediction's count minus `preTokens`; without a hit, the replay's
//!   count at the boundary's request minus `preTokens`.
//! - A **compaction call**'s transcript ([`compaction_call`]) ends with the
//!   summary request its parent session's compaction made: a prediction
//!   within the window before that prompt is that compaction (`ownCall`),
//!   not a false positive; its boundary is in the parent's file.
//! - A file **passed the line** when one of its responses' usage (prompt
//!   and output) is more than the tolerance above the compact line in an
//!   era no automatic compaction ends ([`PassedLine`]): its client did not
//!   compact where the version's line says, so its auto-compact was off or
//!   its window larger (the user's settings, not the client's). Such a
//!   file is scored, and reported apart.
//! - An **incomplete** boundary is one where the file provably lacks
//!   records the client had when it compacted ([`Lack`]): it stays in the
//!   score (hits, misses and the token error are over every real automatic
//!   boundary) and is counted apart.

use serde::Serialize;

use super::lacks::Lack;
use super::replay::{Replay, Timeline};
use crate::message::Uuid;

/// How many records before a real boundary a hit may be (12).
pub const WINDOW_RECORDS: usize = 12;

/// How far a hit's count may be from `preTokens`, per mille (15 = 1.5 %).
pub const TOLERANCE_PER_MILLE: u64 = 15;

/// One real automatic boundary, scored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scored {
    /// The boundary's uuid.
    pub uuid: Uuid,
    /// Its 1-based line in the file.
    pub line: u32,
    /// Its `preTokens`.
    pub pre_tokens: Option<u64>,
    /// The replay's count at the boundary's request (before any
    /// compaction there), when the replay reached it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counted: Option<u64>,
    /// Whether a prediction hit it.
    pub hit: bool,
    /// The nearest prediction within the window: its count, and how many
    /// records before the boundary its last record is (0: the last one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted: Option<(u64, usize)>,
    /// The hitting prediction's count minus `preTokens`; without a hit,
    /// the replay's count at the boundary's request minus `preTokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_error: Option<i64>,
    /// Evidence that the file lacks records the client counted here
    /// ([`Lack`]): such a boundary stays in the score, and is listed apart.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lacks: Vec<Lack>,
    /// Why a missed boundary was missed; `None` for a hit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missed: Option<Miss>,
}

/// Why the replay did not fire at a real automatic boundary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Miss {
    /// The boundary opens no era of the walked history (the file's chain
    /// never reaches it): the replay never counted there.
    NotReached,
    /// The replay fired earlier in the same era, more than
    /// [`WINDOW_RECORDS`] records before the boundary (a false positive),
    /// and its own compaction kept the count low after.
    #[serde(rename_all = "camelCase")]
    FiredEarly {
        /// The early prediction's count.
        tokens: u64,
        /// How many records before the boundary it fired.
        records_before: usize,
    },
    /// The replay fired within the window, at a count more than the
    /// tolerance from `preTokens`.
    #[serde(rename_all = "camelCase")]
    OffInTokens {
        /// The prediction's count.
        tokens: u64,
        /// How many records before the boundary it fired.
        records_before: usize,
    },
    /// The replay's count never reached the compact line in the era.
    #[serde(rename_all = "camelCase")]
    UnderTheLine {
        /// The count at the boundary's request.
        counted: u64,
        /// The compact line.
        line: u64,
    },
}

/// A replay scored against the session's real automatic compactions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fidelity {
    /// Real automatic boundaries.
    pub auto: usize,
    /// Of them, hit.
    pub hits: usize,
    /// Of them, missed.
    pub misses: usize,
    /// Predictions that hit nothing.
    pub false_positives: usize,
    /// Real automatic boundaries where the file lacks records ([`Lack`]).
    pub incomplete: usize,
    /// Of them, hit.
    pub incomplete_hits: usize,
    /// Each real automatic boundary, in file order.
    pub boundaries: Vec<Scored>,
    /// The predictions that hit nothing: last record, count.
    pub false_predictions: Vec<(Uuid, u64)>,
    /// A compaction call's own compaction ([`compaction_call`]): the
    /// prediction within the window before its compaction prompt, last
    /// record and count. Its boundary is in the main session's file, so it
    /// is neither a hit here nor a false positive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own_call: Option<(Uuid, u64)>,
    /// Predictions at a real automatic boundary's own request whose count
    /// is more than the tolerance off: last record, count. Each is its
    /// boundary's miss (`OffInTokens`, 0 records before), not a false
    /// positive.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub off_at_boundary: Vec<(Uuid, u64)>,
    /// Evidence that the client did not compact at the compact line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passed_line: Option<PassedLine>,
}

/// A response whose usage passed the compact line by more than the
/// tolerance in an era that no automatic compaction ends: the client's
/// auto-compact was off or its window larger than the model's known one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PassedLine {
    /// The response (its first record's uuid).
    pub uuid: Uuid,
    /// Its usage: prompt and output tokens.
    pub tokens: u64,
    /// The compact line it passed.
    pub line: u64,
}

/// The largest response of an era that no automatic compaction ends, when
/// its usage passed `line` by more than the tolerance. A compaction call's
/// transcript passes it by construction (its own compaction ends it in the
/// parent's file), so it is never said to.
fn passed_line(timeline: &Timeline, line: u64) -> Option<PassedLine> {
    if compaction_call(timeline).is_some() {
        return None;
    }
    let limit = line.saturating_add(line.saturating_mul(TOLERANCE_PER_MILLE) / 1_000);
    timeline
        .eras()
        .enumerate()
        .filter(|&(i, _)| {
            let closing = timeline.eras.get(i + 1).and_then(|&(_, b)| b);
            !closing.is_some_and(|b| timeline.actual.get(b).is_some_and(|a| a.is_auto()))
        })
        .flat_map(|(_, (_, entries))| entries)
        .filter_map(|(m, _)| {
            let usage = m.usage.as_ref()?;
            Some((m, usage.prompt_tokens().saturating_add(usage.output_tokens)))
        })
        .filter(|&(_, tokens)| tokens > limit)
        .max_by_key(|&(_, tokens)| tokens)
        .map(|(m, tokens)| PassedLine {
            uuid: m.uuid.clone(),
            tokens,
            line,
        })
}

/// How Claude Code's compaction prompt begins (`TRANSCRIPT_FORMAT.md`
/// §5.4).
const COMPACTION_PROMPT: &str = "Your task is to create a detailed summary of the conversation so far";

/// Where a compaction call's prompt stands in the timeline, when the file
/// is one: the transcript of the summary request an automatic or manual
/// compaction makes (`agent-acompact-*.jsonl`: the conversation so far,
/// then the prompt as its last user message, then the summary). The
/// calibration sets hold 7, in 2 repositories (earnabitmore365/merit-ledger
/// 6, yejh123/VibeLens 1), every one ending so.
pub fn compaction_call(timeline: &Timeline) -> Option<usize> {
    let (at, (last_user, _)) = timeline
        .entries
        .iter()
        .enumerate()
        .rev()
        .find(|(_, (m, _))| m.role == crate::message::Role::User)?;
    let starts = |text: &str| text.trim_start().starts_with(COMPACTION_PROMPT);
    let prompt = match &last_user.content {
        crate::message::Content::Text(text) => starts(text),
        crate::message::Content::Blocks(blocks) => blocks.iter().any(|b| match b {
            crate::message::Block::Text { text, .. } => starts(text),
            _ => false,
        }),
    };
    prompt.then_some(at)
}

/// Whether `tokens` is within the tolerance of `pre`.
fn close(tokens: u64, pre: u64) -> bool {
    tokens.abs_diff(pre).saturating_mul(1_000) <= pre.saturating_mul(TOLERANCE_PER_MILLE)
}

/// Scores `replay` (of `timeline`) against the real boundaries.
pub fn score(timeline: &Timeline, replay: &Replay) -> Fidelity {
    let positions = timeline.boundary_positions();
    let predicted: Vec<(Option<usize>, u64)> = replay
        .predicted
        .iter()
        .map(|p| (timeline.position(&p.at_uuid), p.tokens))
        .collect();
    let mut used = vec![false; predicted.len()];
    let mut off_at_boundary = Vec::new();
    let mut boundaries = Vec::new();
    for (b, actual) in replay.actual.iter().enumerate() {
        if !actual.is_auto() {
            continue;
        }
        let token_error = match (
            replay.at_real.iter().find(|r| r.uuid == actual.uuid),
            actual.pre_tokens,
        ) {
            (Some(real), Some(pre)) => Some(real.tokens as i64 - pre as i64),
            _ => None,
        };
        let counted = replay
            .at_real
            .iter()
            .find(|r| r.uuid == actual.uuid)
            .map(|r| r.tokens);
        let mut scored = Scored {
            uuid: actual.uuid.clone(),
            line: actual.line,
            pre_tokens: actual.pre_tokens,
            counted,
            missed: None,
            hit: false,
            predicted: None,
            token_error,
            lacks: actual.lacks.clone(),
        };
        if let Some(end) = positions.get(b).copied().flatten() {
            // Predictions whose last record is among the window's, nearest first.
            let mut near: Vec<(usize, usize, u64)> = predicted
                .iter()
                .enumerate()
                .filter_map(|(i, &(at, tokens))| {
                    let before = end.checked_sub(1)?.checked_sub(at?)?;
                    (before < WINDOW_RECORDS && !used[i]).then_some((before, i, tokens))
                })
                .collect();
            near.sort_unstable();
            scored.predicted = near.first().map(|&(before, _, tokens)| (tokens, before));
            let pre = actual.pre_tokens;
            if let Some(&(before, i, tokens)) = near
                .iter()
                .find(|&&(_, _, tokens)| pre.is_some_and(|pre| close(tokens, pre)))
            {
                used[i] = true;
                scored.hit = true;
                scored.predicted = Some((tokens, before));
                scored.token_error = pre.map(|pre| tokens as i64 - pre as i64);
            } else if let Some(&(0, i, tokens)) = near.first() {
                // Fired at the boundary's own request, off in tokens: the
                // boundary's miss, no compaction the client did not make.
                used[i] = true;
                if let Some(p) = replay.predicted.get(i) {
                    off_at_boundary.push((p.at_uuid.clone(), tokens));
                }
            }
        }
        if !scored.hit {
            scored.missed = Some(why_missed(
                &scored,
                positions.get(b).copied().flatten(),
                &positions,
                &predicted,
                &used,
                replay,
            ));
        }
        boundaries.push(scored);
    }
    // A compaction call's last request is its own compaction: the
    // nearest unused prediction within the window before its prompt.
    let own_call = compaction_call(timeline).and_then(|prompt| {
        let (i, _) = predicted
            .iter()
            .enumerate()
            .filter(|&(i, &(at, _))| {
                !used[i] && at.is_some_and(|at| at <= prompt && prompt - at < WINDOW_RECORDS)
            })
            .max_by_key(|&(_, &(at, _))| at)?;
        used[i] = true;
        replay.predicted.get(i).map(|p| (p.at_uuid.clone(), p.tokens))
    });
    let false_predictions: Vec<(Uuid, u64)> = replay
        .predicted
        .iter()
        .zip(&used)
        .filter(|(_, &u)| !u)
        .map(|(p, _)| (p.at_uuid.clone(), p.tokens))
        .collect();
    let hits = boundaries.iter().filter(|b| b.hit).count();
    let incomplete = boundaries.iter().filter(|b| !b.lacks.is_empty());
    Fidelity {
        auto: boundaries.len(),
        hits,
        misses: boundaries.len() - hits,
        false_positives: false_predictions.len(),
        incomplete: incomplete.clone().count(),
        incomplete_hits: incomplete.filter(|b| b.hit).count(),
        boundaries,
        false_predictions,
        own_call,
        off_at_boundary,
        passed_line: passed_line(timeline, replay.lines.compact),
    }
}

/// Why the replay missed a boundary standing at `end` (its place in the
/// timeline): a prediction in the window too far off in tokens, an earlier
/// one in the same era, or a count under the line.
fn why_missed(
    scored: &Scored,
    end: Option<usize>,
    positions: &[Option<usize>],
    predicted: &[(Option<usize>, u64)],
    used: &[bool],
    replay: &Replay,
) -> Miss {
    let Some(end) = end else {
        return Miss::NotReached;
    };
    if let Some((tokens, records_before)) = scored.predicted {
        return Miss::OffInTokens {
            tokens,
            records_before,
        };
    }
    // The era the boundary closes starts at the latest boundary before it.
    let start = positions
        .iter()
        .flatten()
        .copied()
        .filter(|&p| p < end)
        .max()
        .unwrap_or(0);
    let early = predicted
        .iter()
        .zip(used)
        .filter(|&(_, &u)| !u)
        .filter_map(|(&(at, tokens), _)| at.filter(|&at| start <= at && at < end).map(|at| (at, tokens)))
        .max_by_key(|&(at, _)| at);
    match (early, scored.counted) {
        (Some((at, tokens)), _) => Miss::FiredEarly {
            tokens,
            records_before: end - 1 - at,
        },
        (None, Some(counted)) => Miss::UnderTheLine {
            counted,
            line: replay.lines.compact,
        },
        (None, None) => Miss::NotReached,
    }
}

impl Fidelity {
    /// Recounts the totals from `boundaries` and `false_predictions` (after
    /// [`Copies::drop_repeated`] took some out).
    fn recount(&mut self) {
        let b = &self.boundaries;
        self.auto = b.len();
        self.hits = b.iter().filter(|b| b.hit).count();
        self.misses = self.auto - self.hits;
        self.false_positives = self.false_predictions.len();
        self.incomplete = b.iter().filter(|b| !b.lacks.is_empty()).count();
        self.incomplete_hits = b.iter().filter(|b| !b.lacks.is_empty() && b.hit).count();
    }
}

/// The events of the files scored so far, to count once a session copied
/// into several files (a copy keeps the records' times and the boundaries'
/// `logicalParentUuid`, even when it gives every record a new uuid): a real
/// boundary is the same when its `logicalParentUuid`, `preTokens` and time
/// are; a false positive when its last record's time and its count are.
#[derive(Debug, Default)]
pub struct Copies {
    seen: crate::hash::HashSet<String>,
}

impl Copies {
    /// Drops from `f` (the score of `transcript`'s `timeline`) the
    /// boundaries and false positives an earlier file had, recounts it, and
    /// returns how many of each it dropped.
    pub fn drop_repeated(
        &mut self,
        transcript: &super::Transcript,
        timeline: &Timeline,
        f: &mut Fidelity,
    ) -> (usize, usize) {
        let boundary_key = |s: &Scored| {
            let b = transcript.boundaries.iter().find(|b| b.uuid == s.uuid)?;
            let (parent, time) = (b.logical_parent_uuid.as_ref()?, b.timestamp.as_ref()?);
            Some(format!("boundary {parent} {:?} {}", s.pre_tokens, time.as_str()))
        };
        let prediction_key = |(uuid, tokens): &(Uuid, u64)| {
            let at = timeline.position(uuid)?;
            let time = timeline.entries.get(at)?.0.timestamp.as_ref()?;
            Some(format!("prediction {} {tokens}", time.as_str()))
        };
        let mut mine = crate::hash::HashSet::default();
        let seen = &self.seen;
        let mut repeated = |key: Option<String>| match key {
            Some(key) if seen.contains(&key) => true,
            Some(key) => {
                mine.insert(key);
                false
            }
            None => false,
        };
        let before = (f.boundaries.len(), f.false_predictions.len());
        f.boundaries.retain(|s| !repeated(boundary_key(s)));
        f.false_predictions.retain(|p| !repeated(prediction_key(p)));
        let dropped = (
            before.0 - f.boundaries.len(),
            before.1 - f.false_predictions.len(),
        );
        self.seen.extend(mine);
        f.recount();
        dropped
    }
}
