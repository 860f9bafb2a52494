//! Server compaction blocks (SPEC R13.2). The API ignores everything before
//! the latest `compaction` block, so the view, the count and every tier
//! start there; the block itself is kept byte for byte. Tier 4 can be the
//! server's: the request carries a `compact_20260112` edit triggered at the
//! compact line, and the block its response brings starts the view.

use std::sync::Arc;

use crate::compact::{boundary, Compacted, Progress, Trigger};
use crate::engine::Engine;
use crate::message::{Block, Content, Message, Role, Uuid};
use crate::microcompact::Amount;
use crate::step::{CacheEffect, Evidence, Owner, Step, Tier};
use crate::summary::{summary_prompt, PromptOptions, RetentionReport};
use crate::view::{Entry, Source};

impl Engine {
    /// A message holding a compaction block enters the view as its start:
    /// what the view held before leaves it (the store keeps it), so no
    /// tier counts, snips, clears, collapses or summarises it again.
    pub(crate) fn start_at_compaction(&mut self, stored: Arc<Message>) {
        let replaces: Vec<Uuid> = self.view.messages().map(|m| m.uuid.clone()).collect();
        let before = self.count();
        self.view.replace_entries(Vec::new());
        // The API itself drops that prefix: no signed block after the
        // block follows a prefix the client changed.
        self.view.take_rewrite();
        self.collapse_pending.clear();
        self.microcompact.forget_server_clearing();
        let uuid = stored.uuid.clone();
        self.view.push(
            stored,
            Source::Summary {
                replaces: replaces.clone(),
            },
            Vec::new(),
        );
        self.microcompact.rebuild(&self.view, &self.settings.microcompact);
        if !replaces.is_empty() {
            let mut step = Step::note(
                Tier::Compact,
                "R13.2",
                Owner::Server,
                Evidence::PublicApi,
                before,
                format!(
                    "a compaction block starts the view: the {} message(s) before it, which the API ignores, leave the view (the store keeps them); the block is kept byte for byte",
                    replaces.len()
                ),
            );
            step.count_after = self.count();
            step.messages = vec![uuid];
            step.cache = CacheEffect::PrefixBroken {
                from: step.messages[0].clone(),
            };
            self.pending.push(step);
        }
    }

    /// The `compact_20260112` edit for server compaction: triggered at the
    /// compact line, with the engine's prompt when the host wants it.
    pub(crate) fn compact_edit(&self) -> crate::api::CompactEdit {
        crate::api::CompactEdit {
            kind: "compact_20260112",
            trigger: Amount {
                kind: "input_tokens",
                value: self.lines().compact,
            },
            instructions: self
                .settings
                .api
                .server_instructions
                .then(|| summary_prompt(&PromptOptions::default())),
        }
    }

    /// The step of a call over the compact line with server compaction on.
    pub(crate) fn server_compaction_step(&self) -> Step {
        let count = self.count();
        Step::note(
            Tier::Compact,
            "R13.2",
            Owner::Server,
            Evidence::PublicApi,
            count,
            format!(
                "{} tokens, over the compact line {}: the request carries the compact_20260112 edit (beta compact-2026-01-12), so the server summarises; append its response and its compaction block starts the view",
                count.tokens,
                self.lines().compact
            ),
        )
    }

    /// An on-demand compaction of the whole view (R13.2, beta
    /// `compact-2026-09-04`): the request's `compaction` parameter, its
    /// betas and the messages it summarises, for
    /// [`Engine::swap_in_compaction`] with the block the API returns. It
    /// never carries `context_management` (R13.4). `instructions` replace
    /// the server's prompt (else the engine's, with the
    /// `server_instructions` setting). `None` when the view is empty or
    /// ends with a tool call not yet answered, which the API cannot compact.
    pub fn compaction_request(&self, instructions: Option<&str>) -> Option<crate::api::OnDemandCompaction> {
        let last = self.view.entries().last()?;
        if last.message.role == Role::Assistant && last.message.tool_use_ids().next().is_some() {
            return None;
        }
        let instructions = instructions
            .filter(|i| !i.trim().is_empty())
            .map(str::to_owned)
            .or_else(|| {
                self.settings
                    .api
                    .server_instructions
                    .then(|| summary_prompt(&PromptOptions::default()))
            });
        Some(crate::api::OnDemandCompaction {
            summarised: self.view.messages().map(|m| m.uuid.clone()).collect(),
            compaction: crate::api::CompactionConfig {
                kind: "summarize",
                instructions,
            },
            betas: crate::api::on_demand_betas(self.view.features()),
        })
    }

    /// R9.4 for a signed `compaction` block made elsewhere (the API's
    /// on-demand or background compaction) of exactly the messages
    /// `summarised`, which must open the view in order and end on a legal
    /// cut: they give way to one assistant message holding the block,
    /// byte for byte, and nothing is inserted between it and the messages
    /// after them (no attachment, no pinned copy). Otherwise it fails and
    /// the view stays.
    pub fn swap_in_compaction(&mut self, summarised: &[Uuid], block: Block) -> super::Outcome {
        let (steps, progress) = self.swap_compaction_block(summarised, block);
        self.outcome(steps, Some(progress))
    }

    fn swap_compaction_block(&mut self, summarised: &[Uuid], block: Block) -> (Vec<Step>, Progress) {
        let pre = self.count();
        let refusal = if block.kind() != "compaction" {
            Some(format!("a `{}` block is not a compaction block", block.kind()))
        } else {
            self.swap_refusal(summarised).map(str::to_owned)
        };
        if let Some(why) = refusal {
            let step = self.step(
                Tier::Compact,
                "R9.4",
                Owner::Server,
                Evidence::PublicApi,
                pre,
                summarised.to_vec(),
                0,
                crate::text::concat3(
                    "a compaction block made elsewhere cannot be swapped in: ",
                    &why,
                    "; the view stays",
                ),
            );
            return (vec![step], Progress::Failed { reason: why });
        }
        let len = summarised.len();
        let seed = format!("{} {} compaction", summarised[len - 1], self.compactions);
        let uuid = boundary::derived_uuid(&seed);
        let content = match &block {
            Block::Other { extra, .. } => extra.str_field("content").map(|c| c.into_owned()),
            _ => None,
        };
        let message = Arc::new(Message::new(
            uuid.0.clone(),
            Role::Assistant,
            Content::Blocks(vec![block]),
        ));
        if let Err(e) = self.store.append_shared(Arc::clone(&message)) {
            let why = e.to_string();
            return (Vec::new(), Progress::Failed { reason: why });
        }
        let before_entries = self.view.entries().to_vec();
        let tokens = self.view.estimator().message(&message);
        let media = self.view.estimator().media(&message);
        let mut entries = vec![Entry {
            message,
            sent: None,
            source: Source::Summary {
                replaces: summarised.to_vec(),
            },
            media,
            tokens,
            settled_blocks: Vec::new(),
        }];
        entries.extend(before_entries[len..].iter().cloned());
        let preserved: Vec<Uuid> = before_entries[len..]
            .iter()
            .map(|e| e.message.uuid.clone())
            .collect();
        let produced: Vec<Uuid> = entries.iter().map(|e| e.message.uuid.clone()).collect();
        let after = before_entries.len() - len;
        self.view.replace_entries(entries);
        // The API reads from the block on: the messages after it follow
        // the prefix it summarised, as the server saw it (R13.1 exempt).
        self.view.take_rewrite();
        self.settle_new_view(uuid.clone(), before_entries, produced);
        let post = self.count();
        let logical_parent = self.view.entries().last().map(|e| e.message.uuid.clone());
        let (boundary, record) = self.write_records(
            &seed,
            super::assemble::Written {
                trigger: Trigger::Auto,
                pre,
                post,
                preserved,
                logical_parent,
                summary_uuid: uuid.clone(),
                content: content.unwrap_or_default(),
                took: None,
            },
        );
        let mut step = self.step(Tier::Compact, "R9.4", Owner::Server, Evidence::PublicApi, pre, summarised.to_vec(), 0,
            format!("a signed compaction block replaces exactly the {len} messages it summarised, byte for byte; nothing is inserted between it and the {} after them: {} → {} tokens",
                after, pre.tokens, post.tokens));
        step.count_after = post;
        step.cache = CacheEffect::PrefixBroken { from: uuid };
        (
            vec![step],
            Progress::Compacted {
                result: Box::new(Compacted {
                    boundary,
                    summary: record,
                    attachments: Vec::new(),
                    retention: RetentionReport::default(),
                    restored: Vec::new(),
                }),
            },
        )
    }
}
