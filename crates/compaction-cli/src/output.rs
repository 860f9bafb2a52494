//! What `plan` and `compact` print: typed values serialised straight to
//! text, never through `serde_json::Value`. A message's unknown fields and
//! a tool's input are kept as their JSON text, at any depth; `Value` would
//! parse them again and stop at serde_json's recursion limit (128 levels),
//! which `json!` turned into a panic.

use compaction_core::api::{ContextManagement, ThinkingParams};
use compaction_core::breakdown::Breakdown;
use compaction_core::compact::{BoundaryRecord, Candidate, SummaryRecord};
use compaction_core::engine::{CallStatus, Engine, Request};
use compaction_core::format::Ledger;
use compaction_core::message::{Json, Message};
use compaction_core::step::Step;
use compaction_core::summary::RetentionReport;
use compaction_core::thresholds::Thresholds;
use compaction_core::tokens::TokenFigure;
use serde::Serialize;

use crate::files::Refusal;

/// The view: the engine's messages, or the items of the history's format.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum View<'a> {
    /// Anthropic messages.
    Messages(Vec<&'a Message>),
    /// Another SDK's items (`--format`), each as its JSON text.
    Items(Vec<Json>),
}

/// The view to print: in the history's format when it has one.
pub fn view_of<'a>(engine: &'a Engine, ledger: Option<&Ledger>) -> Result<View<'a>, String> {
    Ok(match ledger {
        Some(ledger) => View::Items(crate::format::view(engine, ledger)?),
        None => View::Messages(engine.view().sent_messages().collect()),
    })
}

/// `compaction plan`'s output.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan<'a> {
    pub steps: Vec<Step>,
    pub view: View<'a>,
    pub requests: Vec<Request>,
    pub status: CallStatus,
    pub count: TokenFigure,
    pub lines: Thresholds,
    pub context_management: Option<ContextManagement>,
    pub betas: Vec<String>,
    pub thinking: Option<ThinkingParams>,
    pub breakdown: Breakdown,
}

/// `compaction compact`'s output.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Compact<'a> {
    pub steps: Vec<Step>,
    pub view: View<'a>,
    /// What the next call needs: the decision it would get.
    pub betas: Vec<String>,
    pub context_management: Option<ContextManagement>,
    pub boundary: BoundaryRecord,
    pub summary: SummaryRecord,
    pub attachments: Vec<Candidate>,
    pub retention: RetentionReport,
    /// The files not read because the rule refused them (`files`).
    pub refused: Vec<Refusal>,
}
