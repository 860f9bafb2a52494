//! The count's basis in a session file (extension, SPEC R11.6): a
//! `count_calibrated` record, written whenever what the count rests on
//! changes in a way the messages cannot say again (R1.6, R1.6a: the last
//! reported usage, a refused request's stated size, the calibration), and
//! how the importer reads it. A resume takes the file's last such record
//! as the state after the message it names ([`Resume::counting`](super::Resume::counting)),
//! so a resumed engine counts as the live one did.
//!
//! Like the extension's other records it is a `system` record in the
//! `parentUuid` chain, which Claude Code walks through:
//!
//! ```json
//! {"parentUuid":"m7","isSidechain":false,"userType":"external","sessionId":"s",
//!  "version":"context-compaction","type":"system","subtype":"count_calibrated",
//!  "content":"Count calibrated: the last reported usage and the estimate's calibration",
//!  "timestamp":"2026-12-01T12:00:00Z","uuid":"…","level":"info",
//!  "countMetadata":{"afterUuid":"m7","calibration":{"real":5120,"estimated":4650},
//!   "anchor":{"uuid":"m7","reported":48210,"replyDelta":312,"prefixDelta":-1800},
//!   "serverCleared":{"through":"toolu_31","firedAt":51}}}
//! ```
//!
//! `afterUuid` is the view's last message when the record was written (the
//! state holds from there on); `anchor` is `null` when the count was an
//! estimate, and its `uuid` `null` when nothing followed a refused
//! request's stated size. `serverCleared`, present only once the
//! cache-aware microcompact fired (R4.3), is what the view predicts the
//! server clears by context editing.

use super::expand::{envelope_and, system_line, Meta};
use super::export::RecordContext;
use super::model::Fields;
use super::record::{Envelope, Invalid, Record};
use crate::compact::boundary::derived_uuid;
use crate::engine::Engine;
use crate::message::Uuid;
use crate::view::{Calibration, Counting, SavedAnchor, ServerCleared};

/// The `subtype` of the record.
pub const COUNTED_SUBTYPE: &str = "count_calibrated";

/// A count's basis as a file states it: the state, and the view's last
/// message when it was written (`None`: the view was empty).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedCounting {
    /// The view's last message when the record was written.
    pub after: Option<Uuid>,
    /// The state from there on.
    pub counting: Counting,
}

impl SavedCounting {
    /// Where a resumed view takes the state: after the message at this
    /// index of `view` (the uuids in order), or before the first when the
    /// view no longer holds the message the record followed.
    pub fn position_in<'a>(&self, view: impl IntoIterator<Item = &'a Uuid>) -> Option<usize> {
        let after = self.after.as_ref()?;
        view.into_iter().position(|u| u == after)
    }
}

/// Takes a file's count basis while a host loads its resumed view into an
/// engine one message at a time (the package's `loadSession`, the CLI's
/// `--session`): before the first message when the view no longer holds
/// the one the record followed, else right after that one.
pub struct Restorer<'a> {
    saved: Option<&'a SavedCounting>,
    at: Option<usize>,
}

impl<'a> Restorer<'a> {
    /// Before loading `view` (the resumed messages' uuids, in order) into
    /// the empty `engine`.
    pub fn start<'u>(
        saved: Option<&'a SavedCounting>,
        view: impl IntoIterator<Item = &'u Uuid>,
        engine: &mut Engine,
    ) -> Self {
        let at = saved.and_then(|s| s.position_in(view));
        if let (Some(s), None) = (saved, at) {
            engine.restore_counting(&s.counting);
        }
        Restorer { saved, at }
    }

    /// After loading the view's message at index `i`.
    pub fn loaded(&self, i: usize, engine: &mut Engine) {
        if let (Some(s), Some(at)) = (self.saved, self.at) {
            if at == i {
                engine.restore_counting(&s.counting);
            }
        }
    }
}

/// A `count_calibrated` record, read.
pub(crate) struct CountedLine {
    pub envelope: Envelope,
    pub saved: SavedCounting,
}

/// Reads a `count_calibrated` record; without a `countMetadata.calibration`
/// of two whole numbers it says nothing and is kept verbatim (an invalid
/// record).
pub(crate) fn read_counted(map: Fields) -> Result<Record<'static>, (Invalid, Fields)> {
    let (envelope, meta, map) = envelope_and(map, "countMetadata")?;
    let calibration = meta.get("calibration").and_then(|raw| raw.read::<Fields>());
    let calibration = calibration.and_then(|c| {
        Some(Calibration {
            real: c.get("real")?.read()?,
            estimated: c.get("estimated")?.read()?,
        })
    });
    let anchor = match meta.get("anchor").filter(|raw| raw.text() != "null") {
        None => Some(None),
        Some(raw) => raw.read::<Fields>().and_then(|a| {
            let uuid = match a.get("uuid").filter(|raw| raw.text() != "null") {
                None => None,
                Some(raw) => Some(Uuid(raw.read::<String>()?)),
            };
            Some(Some(SavedAnchor {
                uuid,
                reported: a.get("reported")?.read()?,
                reply_delta: a.get("replyDelta")?.read()?,
                prefix_delta: a.get("prefixDelta")?.read()?,
            }))
        }),
    };
    let server_cleared = match meta.get("serverCleared").filter(|raw| raw.text() != "null") {
        None => Some(None),
        Some(raw) => raw.read::<Fields>().and_then(|c| {
            Some(Some(ServerCleared {
                through: c.get("through")?.read()?,
                fired_at: c.get("firedAt")?.read()?,
            }))
        }),
    };
    let (Some(calibration), Some(anchor), Some(server_cleared)) = (calibration, anchor, server_cleared)
    else {
        let why = "`countMetadata` must hold a `calibration` {real, estimated}, an `anchor` (null or {uuid, reported, replyDelta, prefixDelta}) of whole numbers, and no `serverCleared` or one {through, firedAt}".to_owned();
        return Err((why, map));
    };
    let after = meta
        .str_field("afterUuid")
        .filter(|u| !u.is_empty())
        .map(|u| Uuid::from(u.as_ref()));
    Ok(Record::Counted(CountedLine {
        envelope,
        saved: SavedCounting {
            after,
            counting: Counting {
                calibration,
                anchor,
                server_cleared,
            },
        },
    }))
}

/// The record written when the count's basis became `counting`, the view
/// ending at `after`: its uuid and its JSONL line, chained after `parent`.
pub fn counted_record(
    counting: &Counting,
    after: Option<&Uuid>,
    parent: Option<&Uuid>,
    ctx: &RecordContext,
) -> (Uuid, String) {
    let Calibration { real, estimated } = counting.calibration;
    let reported = counting.anchor.as_ref().map_or(0, |a| a.reported);
    let under = parent.map_or("", Uuid::as_str);
    let uuid = derived_uuid(&format!("{under} counted {real} {estimated} {reported}"));
    let meta = Meta::Count(CountMetadata {
        after_uuid: after,
        calibration: counting.calibration,
        anchor: counting.anchor.as_ref(),
        server_cleared: counting.server_cleared.as_ref(),
    });
    let content = "Count calibrated: the last reported usage and the estimate's calibration";
    system_line(uuid, COUNTED_SUBTYPE, content, meta, parent, ctx)
}

/// `countMetadata`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CountMetadata<'a> {
    after_uuid: Option<&'a Uuid>,
    calibration: Calibration,
    anchor: Option<&'a SavedAnchor>,
    #[serde(skip_serializing_if = "Option::is_none")]
    server_cleared: Option<&'a ServerCleared>,
}
