//! The end of a compaction (SPEC R7.7–R7.9): attachments restored, the new
//! view assembled (summary, pinned groups, preserved messages with usage
//! zeroed, attachments), then the boundary and summary records, only once
//! the view is complete.

use std::sync::Arc;

use super::tier4::{Run, EVIDENCE_ATTACH, EVIDENCE_FINALIZE};
use super::Engine;
use crate::compact::{
    attachments, boundary, context, BoundaryRecord, Compacted, FileAnswer, HookOutput, Progress,
    SummaryRecord, Trigger,
};
use crate::message::{Message, Role, Uuid};
use crate::step::{CacheEffect, Owner, Step, Tier};
use crate::tokens::TokenFigure;
use crate::view::{Entry, Source};

impl Engine {
    pub(super) fn finish(
        &mut self,
        run: Run,
        mut steps: Vec<Step>,
        answers: &[FileAnswer],
        hooks: &[HookOutput],
    ) -> (Vec<Step>, Progress) {
        let Some((summary, retention)) = run.summary.clone() else {
            return (steps, self.fail(&run, "no summary to assemble"));
        };
        let last = self.view.entries().last().map(|e| e.message.uuid.clone());
        let seed = format!(
            "{} {}",
            last.as_ref().map_or("", |u| u.as_str()),
            self.compactions
        );
        let settings = &self.settings.compact.attachments;
        let (mut candidates, mut attachment_messages) = attachments::restore(
            &run.candidates,
            answers,
            settings,
            &self.settings.estimator,
            &seed,
        );
        let files = candidates.len();
        let restored = |c: &&attachments::Candidate| {
            matches!(
                c.status,
                attachments::Status::Restored { .. } | attachments::Status::PathOnly
            )
        };
        let restored_files = candidates.iter().filter(restored).count();
        let (others, other_messages) = context::restore(
            &self.context,
            &self.view,
            hooks,
            settings,
            &self.settings.estimator,
            &seed,
        );
        let mut reason = format!("{restored_files} of {files} candidate file(s) restored after the summary");
        if !others.is_empty() {
            let named: Vec<String> = others
                .iter()
                .map(|c| {
                    let mark = if restored(&c) { "" } else { " (not restored)" };
                    format!("{} {}{mark}", c.kind.as_str(), c.path)
                })
                .collect();
            reason.push_str(&format!("; then {}", named.join(", ")));
        }
        candidates.extend(others);
        attachment_messages.extend(other_messages);
        steps.push(self.step(
            Tier::Compact,
            "R7.7",
            Owner::Client,
            EVIDENCE_ATTACH,
            run.pre,
            attachment_messages.iter().map(|m| m.uuid.clone()).collect(),
            0,
            reason,
        ));

        // Assemble the new view (R7.8): summary, preserved (usage zeroed,
        // R7.6), attachments.
        let summary_uuid = boundary::derived_uuid(&crate::text::concat(&seed, " summary"));
        let mut text = format!(
            "This session is being continued from an earlier conversation that was compacted. The summary below covers the earlier part.\n\n{summary}"
        );
        // R11.3: the transcript's path, in Claude Code's words.
        if let Some(path) = &self.settings.compact.transcript_path {
            text.push_str(&format!(
                "\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: {path}"
            ));
        }
        let replaces: Vec<Uuid> = self.view.entries()[run.head_end..run.prefix.end]
            .iter()
            .map(|e| e.message.uuid.clone())
            .collect();
        // A partial compaction "from here" keeps what came before verbatim,
        // ahead of the summary (R7.5).
        let mut entries: Vec<(Arc<Message>, Source)> = self.view.entries()[..run.head_end]
            .iter()
            .map(|e| {
                (
                    zero_usage(e.sent.as_ref().unwrap_or(&e.message)),
                    e.source.clone(),
                )
            })
            .collect();
        let made = |mut m: Message| {
            m.timestamp.clone_from(&self.clock);
            m
        };
        entries.push((
            Arc::new(made(Message::user(summary_uuid.0.clone(), text.clone()))),
            Source::Summary { replaces },
        ));
        // Pinned messages of the summarised part follow the summary
        // verbatim, with their legal groups (extension), then the preserved
        // tail (usage zeroed, R7.6); the boundary lists both, in this order,
        // so a resume relinks them as the live view has them.
        let pinned_groups: Vec<std::ops::Range<usize>> = self
            .view
            .segmentation()
            .groups()
            .filter(|g| g.start >= run.head_end && g.end <= run.prefix.end)
            .filter(|g| {
                self.view.entries()[g.clone()]
                    .iter()
                    .any(|e| self.pinned.contains(e.message.uuid.as_str()))
            })
            .collect();
        let preserved: Vec<Arc<Message>> = pinned_groups
            .into_iter()
            .flat_map(|group| &self.view.entries()[group])
            .chain(&self.view.entries()[run.prefix.end..])
            .map(|e| zero_usage(e.sent.as_ref().unwrap_or(&e.message)))
            .collect();
        // When the last preserved message's calls are still open, the
        // attachments go before the preserved messages, so the results the
        // host appends next follow their calls (as a resume relinks them).
        let open_tool_use = preserved
            .last()
            .is_some_and(|m| m.tool_use_ids().next().is_some());
        let attachment_messages: Vec<Message> = attachment_messages.into_iter().map(made).collect();
        let restored = attachment_messages.clone();
        let attachments: Vec<_> = attachment_messages
            .into_iter()
            .map(|m| (Arc::new(m), Source::Attachment))
            .collect();
        if open_tool_use {
            entries.extend(attachments.iter().cloned());
        }
        let preserved_uuids: Vec<Uuid> = preserved.iter().map(|m| m.uuid.clone()).collect();
        entries.extend(preserved.into_iter().map(|m| (m, Source::Stored)));
        if !open_tool_use {
            entries.extend(attachments);
        }
        let before_entries = self.view.entries().to_vec();
        let produced: Vec<Uuid> = entries.iter().map(|(m, _)| m.uuid.clone()).collect();
        self.view.replace(entries);
        self.settle_new_view(summary_uuid.clone(), before_entries, produced);
        let tier = if run.reactive {
            Tier::Reactive
        } else {
            Tier::Compact
        };
        let thinking = self.settle_thinking(tier);
        let post = self.count();
        let (boundary, record) = self.write_records(
            &seed,
            Written {
                trigger: run.trigger,
                pre: run.pre,
                post,
                preserved: preserved_uuids,
                logical_parent: last,
                summary_uuid: summary_uuid.clone(),
                content: text,
                took: run.took,
            },
        );
        let mut step = self.step(Tier::Compact, "R7.9", Owner::Client, EVIDENCE_FINALIZE, run.pre, vec![summary_uuid], 0,
            format!("new view assembled (summary + {} preserved + attachments), then the boundary written: {} → {} tokens",
                boundary.compact_metadata.preserved_messages.len(), run.pre.tokens, post.tokens));
        step.count_after = post;
        step.cache = CacheEffect::PrefixBroken {
            from: record.uuid.clone(),
        };
        steps.push(step);
        steps.extend(thinking);
        self.breakers.succeeded(self.calls_seen());
        (
            steps,
            Progress::Compacted {
                result: Box::new(Compacted {
                    boundary,
                    summary: record,
                    attachments: candidates,
                    retention,
                    restored,
                }),
            },
        )
    }
}

/// What a compaction's records say (R7.9).
pub(super) struct Written {
    pub(super) trigger: Trigger,
    pub(super) pre: TokenFigure,
    pub(super) post: TokenFigure,
    pub(super) preserved: Vec<Uuid>,
    pub(super) logical_parent: Option<Uuid>,
    pub(super) summary_uuid: Uuid,
    pub(super) content: String,
    /// The summary call's milliseconds, when the host said.
    pub(super) took: Option<u64>,
}

impl Engine {
    /// A compaction's new view is in force (R7.8): what it replaced is kept
    /// as lineage under `key` (for `expand`); the view is sent afresh, so
    /// server-side clearing starts over, and segment summaries asked for the
    /// old view no longer apply.
    pub(super) fn settle_new_view(&mut self, key: Uuid, before: Vec<Entry>, produced: Vec<Uuid>) {
        self.microcompact.rebuild(&self.view, &self.settings.microcompact);
        self.microcompact.forget_server_clearing();
        self.collapse_pending.clear();
        self.keep_lineage(key, crate::engine::Replaced { before, produced });
    }

    /// Keeps what the compaction or collapse `key` replaced (one entry per
    /// key, the latest).
    pub(super) fn keep_lineage(&mut self, key: Uuid, replaced: crate::engine::Replaced) {
        self.lineage.retain(|(k, _)| *k != key);
        self.lineage.push((key, replaced));
    }

    /// Counts a finished compaction and writes its two records (R7.9): the
    /// `compact_boundary`, then the summary after it.
    pub(super) fn write_records(&mut self, seed: &str, w: Written) -> (BoundaryRecord, SummaryRecord) {
        self.cumulative_dropped += w.pre.tokens.saturating_sub(w.post.tokens);
        self.compactions += 1;
        let boundary_uuid = boundary::derived_uuid(&crate::text::concat(seed, " boundary"));
        let boundary = BoundaryRecord {
            kind: "system",
            subtype: "compact_boundary",
            uuid: boundary_uuid.clone(),
            parent_uuid: None,
            logical_parent_uuid: w.logical_parent,
            content: "Conversation compacted",
            level: "info",
            compact_metadata: boundary::CompactMetadata {
                trigger: w.trigger,
                pre_tokens: w.pre.tokens,
                post_tokens: w.post.tokens,
                duration_ms: w.took,
                preserved_messages: w.preserved,
                cumulative_dropped_tokens: self.cumulative_dropped,
                shape: self.settings.compact.records,
            },
        };
        let record = SummaryRecord {
            kind: "user",
            uuid: w.summary_uuid,
            parent_uuid: boundary_uuid,
            is_compact_summary: true,
            message: boundary::SummaryPayload {
                role: "user",
                content: w.content,
            },
        };
        (boundary, record)
    }
}

/// A kept message with an assistant's usage counters zeroed (R7.6).
fn zero_usage(m: &Arc<Message>) -> Arc<Message> {
    if m.role == Role::Assistant && m.usage.is_some() {
        let mut zeroed = (**m).clone();
        zeroed.usage = Some(Box::new(crate::message::Usage::zeroed()));
        Arc::new(zeroed)
    } else {
        Arc::clone(m)
    }
}
