//! Tier 4's parts (SPEC R7) that know no engine: its settings and the data
//! it exchanges with the host ([`protocol`]), where to cut ([`cut`]), what
//! to restore after the summary ([`attachments`], [`context`]) and the
//! records it writes ([`boundary`]). The run itself, a sans-IO state
//! machine on the [`Engine`](crate::engine::Engine), lives in
//! `engine/tier4.rs`.

pub mod attachments;
pub mod boundary;
pub mod context;
pub mod cut;
pub mod protocol;

pub use attachments::{AttachmentSettings, Candidate, FileAnswer};
pub use boundary::{BoundaryRecord, SummaryRecord, Trigger};
pub use context::{ContextItem, HookOutput};
pub use protocol::{
    CompactOptions, CompactSettings, Compacted, Direction, FileRequest, HookOutcome, PartialCompact,
    PreCompactRequest, Progress, Purpose, SummaryRequest,
};
