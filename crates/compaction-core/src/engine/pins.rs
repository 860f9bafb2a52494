//! Extensions over Claude Code (ANCHORS.md §3): pinned messages, and
//! expanding a compaction or collapse back to what it replaced.

use crate::hash::KeySet;

use super::Engine;
use crate::error::Error;
use crate::message::Uuid;
use crate::step::{CacheEffect, Evidence, Owner, Step, Tier};
use crate::view::Entry;

impl Engine {
    /// Pins a store message (extension): it is never snipped, its tool
    /// results are never cleared, and after a compaction it follows the
    /// summary verbatim with its legal group.
    pub fn pin(&mut self, uuid: &Uuid) -> Result<(), Error> {
        if self.store.get(uuid).is_none() {
            return Err(Error::UnknownMessage { uuid: uuid.0.clone() });
        }
        self.pinned.insert(uuid.0.clone());
        Ok(())
    }

    /// Unpins a message; unknown or unpinned uuids change nothing.
    pub fn unpin(&mut self, uuid: &Uuid) {
        self.pinned.remove(uuid.as_str());
    }

    /// Whether the message `uuid` is pinned.
    pub fn is_pinned(&self, uuid: &Uuid) -> bool {
        self.pinned.contains(uuid.as_str())
    }

    /// Pinned uuids, sorted (as texts: the module's one stable sort is of
    /// Strings, `State::no_duplicates`' and the cleared tool ids').
    pub fn pinned(&self) -> Vec<String> {
        let mut pins: Vec<String> = self.pinned.iter().cloned().collect();
        pins.sort();
        pins
    }

    /// Undoes a compaction in the view (extension): the entries it replaced
    /// come back exactly as the view had them, in place of what it put
    /// there; messages appended since stay after them. The store is
    /// untouched. A summary that a later compaction summarised is no longer
    /// in the view: expand the later one first.
    pub fn expand(&mut self, summary: &Uuid) -> Result<Step, Error> {
        let Some(position) = self.view.position(summary) else {
            return Err(Error::UnknownMessage {
                uuid: summary.0.clone(),
            });
        };
        let Some(replaced) = self
            .lineage
            .iter()
            .find(|(k, _)| k == summary)
            .map(|(_, r)| r.clone())
        else {
            return Err(Error::UnknownMessage {
                uuid: summary.0.clone(),
            });
        };
        let before = self.count();
        // By owned text: the module's one set type is `KeySet<String>`.
        let produced: KeySet<String> = replaced.produced.iter().map(|u| u.0.clone()).collect();
        let mut entries: Vec<Entry> = Vec::new();
        for (i, entry) in self.view.entries().iter().enumerate() {
            if i == position {
                entries.extend(replaced.before.iter().cloned());
            }
            if !produced.contains(entry.message.uuid.as_str()) {
                entries.push(entry.clone());
            }
        }
        let restored: Vec<Uuid> = replaced.before.iter().map(|e| e.message.uuid.clone()).collect();
        self.view.replace_entries(entries);
        self.microcompact.rebuild(&self.view, &self.settings.microcompact);
        self.lineage.retain(|(k, _)| k != summary);
        // The restored entries and what follows them have a new prefix
        // again (R13.1); the next call reports what that did to thinking.
        if let Some(step) = self.settle_thinking(Tier::Compact) {
            self.pending.push(step);
        }
        Ok(Step {
            tier: Tier::Compact,
            rule: "R6.2",
            owner: Owner::Client,
            evidence: Evidence::Extension,
            count_before: before,
            count_after: self.count(),
            messages: restored,
            blocks: Vec::new(),
            cache: CacheEffect::PrefixBroken {
                from: summary.clone(),
            },
            model_calls: 0,
            reason: format!(
                "expanded summary {summary}: the {} view entries it replaced are back (extension: lineage)",
                replaced.before.len()
            ),
        })
    }
}
