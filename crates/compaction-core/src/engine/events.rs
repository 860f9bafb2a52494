//! The view changes the host's session log records (R11.6).

use std::sync::Arc;

use crate::message::{Message, Uuid};

/// A change to the view that no message record says (R11.6): the host's
/// session log writes a record of it, so a resume shows the view the live
/// engine has.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewEvent {
    /// A snip (R5) deleted messages from the view.
    Snipped {
        /// The messages deleted.
        removed: Vec<Uuid>,
    },
    /// A collapse (R6) replaced messages with a segment summary.
    Collapsed {
        /// The messages replaced (pinned ones it kept are not among them).
        removed: Vec<Uuid>,
        /// The summary that took their place.
        summary: Arc<Message>,
        /// The message before them in the view (none at its start): the
        /// summary follows it.
        after: Option<Uuid>,
    },
}
