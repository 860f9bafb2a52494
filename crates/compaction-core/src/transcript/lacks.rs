//! Where a session file provably lacks records its client had when it
//! compacted (issue "Real Claude Code sessions"): evidence, read from the
//! file alone, that the request a boundary was written before held
//! content no record holds, so that no replay of the file can count what
//! the client counted there.
//!
//! Measured on the calibration set (`../shared/fixtures/sessions/`, 34
//! automatic boundaries): the client writes the records of its last turn
//! before an automatic compaction late or not at all, from 2.1.17 on. The
//! five boundaries a replay misses all have evidence; every boundary
//! without it (21) is hit. `compaction fidelity` lists the boundaries with
//! evidence apart, and keeps them in its score.
//!
//! What the missing records held, where the file shows it: the results of
//! a `nc`, a `Grep`, an `Edit`, a `grep | head -30` and a `Read` of 80
//! lines (38 to 813 tokens short); once a whole `Edit` request, named only by its
//! `PostToolUse` hook; once IDE diagnostics the summary quotes ("✘ [Line
//! 800:13] undefined: session", 430 tokens short). In none of them does
//! the tool's result appear later: not after the boundary, not in a
//! `toolUseResult`, not in a hook record.

use serde::Serialize;

use super::Transcript;
use crate::hash::HashSet;
use crate::message::{Role, Uuid};

/// One piece of evidence that the file lacks records at a boundary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Lack {
    /// The boundary's `logicalParentUuid` (the last message the client
    /// compacted) names no record in the file.
    #[serde(rename_all = "camelCase")]
    LogicalParentAbsent {
        /// The uuid named.
        uuid: Uuid,
    },
    /// The last API response before the boundary calls a tool that no
    /// `tool_result` in the file answers: the client compacted before the
    /// request that carried the result, counted it, and never wrote it.
    #[serde(rename_all = "camelCase")]
    UnansweredToolUse {
        /// The 1-based line of the response's first record.
        line: u32,
        /// The call's `tool_use` id.
        tool_use_id: String,
    },
    /// A `progress` record (a hook run, a command's output) written after
    /// the last recorded response names a tool call that no record holds:
    /// a whole request, its response and the tool's result, is missing.
    #[serde(rename_all = "camelCase")]
    HookForMissingCall {
        /// The 1-based line of the `progress` record.
        line: u32,
        /// Its `parentToolUseID`.
        tool_use_id: String,
    },
}

/// Whether `id` has a uuid's shape (`8-4-4-4-12` hex digits). Claude Code
/// gives a hook run that no tool call started (`SessionStart`, `Stop`) a
/// random uuid as its `parentToolUseID`; a tool call's id is the API's
/// (`toolu_…`), never of this shape.
fn is_uuid_shaped(id: &str) -> bool {
    let groups: Vec<&str> = id.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

impl Transcript {
    /// For each boundary, in file order ([`Transcript::boundaries`]), the
    /// evidence that the file lacks records the client had when it wrote
    /// it ([`Lack`]); empty when the file shows none.
    pub fn lacks(&self) -> Vec<Vec<Lack>> {
        let uses: HashSet<&str> = self
            .messages
            .iter()
            .flat_map(|m| m.message.tool_use_ids())
            .collect();
        let results: HashSet<&str> = self
            .messages
            .iter()
            .flat_map(|m| m.message.tool_result_ids())
            .collect();
        self.lacks_given(&|id| uses.contains(id), &|id| results.contains(id))
    }

    /// [`Transcript::lacks`] given whether the file uses and answers each
    /// tool id (a host collects them a slice at a time).
    pub(crate) fn lacks_given(
        &self,
        used: &dyn Fn(&str) -> bool,
        answered: &dyn Fn(&str) -> bool,
    ) -> Vec<Vec<Lack>> {
        // The responses and the progress records by line, each boundary
        // found in them by binary search: linear in the file, not in
        // boundaries × records.
        let mut responses: Vec<(u32, usize)> = self
            .messages
            .iter()
            .enumerate()
            .filter(|(_, m)| m.message.role == Role::Assistant && !m.is_compact_summary)
            .map(|(i, m)| (m.line, i))
            .collect();
        // In file order already, unless a response's records were merged
        // out of order (std's sort in the wasm modules is a heapsort:
        // as slow on sorted input).
        if !responses.is_sorted() {
            responses.sort_unstable();
        }
        let mut progress: Vec<&(u32, String)> = self.progress_calls.iter().collect();
        progress.sort_by_key(|(line, _)| *line);
        self.boundaries
            .iter()
            .map(|b| {
                let mut out = Vec::new();
                if let (Some(uuid), false) = (&b.logical_parent_uuid, b.logical_parent_found) {
                    out.push(Lack::LogicalParentAbsent { uuid: uuid.clone() });
                }
                // The last response before the boundary (by its first line).
                let before = responses.partition_point(|&(line, _)| line < b.line);
                let Some(last) = before
                    .checked_sub(1)
                    .and_then(|at| responses.get(at))
                    .and_then(|&(_, i)| self.messages.get(i))
                else {
                    return out;
                };
                for id in last.message.tool_use_ids() {
                    if !answered(id) {
                        out.push(Lack::UnansweredToolUse {
                            line: last.line,
                            tool_use_id: id.to_owned(),
                        });
                    }
                }
                let from = progress.partition_point(|(line, _)| *line < last.line);
                for (line, call) in progress.iter().skip(from).take_while(|(line, _)| *line < b.line) {
                    if !is_uuid_shaped(call) && !used(call.as_str()) {
                        out.push(Lack::HookForMissingCall {
                            line: *line,
                            tool_use_id: call.clone(),
                        });
                    }
                }
                out
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::{is_uuid_shaped, Lack};
    use crate::message::Uuid;
    use crate::transcript::import;

    /// A file from JSON lines.
    fn file(lines: &[&str]) -> Vec<Vec<Lack>> {
        import(format!("{}\n", lines.join("\n")).as_bytes()).lacks()
    }

    const USER: &str =
        r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"go"}}"#;

    fn call(uuid: &str, parent: &str, id: &str) -> String {
        format!(
            r#"{{"type":"assistant","uuid":"{uuid}","parentUuid":"{parent}","message":{{"id":"msg_{uuid}","role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"Read","input":{{}}}}]}}}}"#
        )
    }

    fn result(uuid: &str, parent: &str, id: &str) -> String {
        format!(
            r#"{{"type":"user","uuid":"{uuid}","parentUuid":"{parent}","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"ok"}}]}}}}"#
        )
    }

    fn hook(uuid: &str, parent: &str, id: &str) -> String {
        format!(
            r#"{{"type":"progress","uuid":"{uuid}","parentUuid":"{parent}","data":{{"type":"hook_progress","hookEvent":"PostToolUse"}},"parentToolUseID":"{id}","toolUseID":"{id}"}}"#
        )
    }

    fn boundary(logical_parent: &str) -> String {
        format!(
            r#"{{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,"logicalParentUuid":"{logical_parent}","compactMetadata":{{"trigger":"auto","preTokens":1000}}}}"#
        )
    }

    const SUMMARY: &str = r#"{"type":"user","uuid":"s1","parentUuid":"b1","isCompactSummary":true,"message":{"role":"user","content":"summary"}}"#;

    #[test]
    fn a_complete_file_shows_no_lack() {
        let lines = [
            USER.to_owned(),
            call("a1", "u1", "toolu_1"),
            hook("p1", "a1", "toolu_1"),
            result("r1", "a1", "toolu_1"),
            boundary("r1"),
            SUMMARY.to_owned(),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(file(&refs), vec![Vec::<Lack>::new()]);
    }

    #[test]
    fn a_boundary_right_after_an_unanswered_call_lacks_its_result() {
        // The result is nowhere: not before the boundary, not after it.
        let lines = [
            USER.to_owned(),
            call("a1", "u1", "toolu_1"),
            hook("p1", "x9", "toolu_1"),
            boundary("x9"),
            SUMMARY.to_owned(),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(
            file(&refs),
            vec![vec![
                Lack::LogicalParentAbsent {
                    uuid: Uuid::from("x9")
                },
                Lack::UnansweredToolUse {
                    line: 2,
                    tool_use_id: "toolu_1".into()
                },
            ]]
        );
    }

    #[test]
    fn a_hook_for_a_call_in_no_record_is_a_missing_request() {
        let lines = [
            USER.to_owned(),
            call("a1", "u1", "toolu_1"),
            result("r1", "a1", "toolu_1"),
            hook("p2", "a2", "toolu_2"),
            boundary("r1"),
            SUMMARY.to_owned(),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(
            file(&refs),
            vec![vec![Lack::HookForMissingCall {
                line: 4,
                tool_use_id: "toolu_2".into()
            }]]
        );
    }

    #[test]
    fn session_hooks_and_earlier_hooks_are_no_evidence() {
        // A SessionStart hook's parentToolUseID is a uuid, not a call; a
        // hook before the last recorded response says nothing of the
        // boundary's request.
        let lines = [
            USER.to_owned(),
            hook("p0", "u1", "toolu_0"),
            call("a1", "u1", "toolu_1"),
            result("r1", "a1", "toolu_1"),
            hook("p1", "r1", "8833e0e5-9806-48fa-9e79-e23cf8340558"),
            boundary("r1"),
            SUMMARY.to_owned(),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(file(&refs), vec![Vec::<Lack>::new()]);
    }

    #[test]
    fn uuid_shape() {
        assert!(is_uuid_shaped("8833e0e5-9806-48fa-9e79-e23cf8340558"));
        assert!(!is_uuid_shaped("toolu_01EuCdBXgmbPccorsEb1i44w"));
        assert!(!is_uuid_shaped("8833e0e5-9806-48fa-9e79-e23cf834055"));
        assert!(!is_uuid_shaped("8833e0e5-9806-48fa-9e79-e23cf834055g"));
    }
}
