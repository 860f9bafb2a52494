//! The hand-written `Serialize` impls of [`CallStatus`] and [`Request`]
//! (one body for tagged enums, for the module's size) against copies of
//! the derives they replace: the same JSON for every variant.
#![allow(clippy::unwrap_used)]

use super::*;

#[derive(Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", rename_all_fields = "camelCase")]
enum DerivedCallStatus {
    Proceed,
    Warn { tokens_left: f64 },
    CompactionDue { over_by: f64 },
    WaitForCollapse { pending: f64 },
    Blocked { over_by: f64 },
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DerivedSummaryRequest {
    id: f64,
    purpose: Purpose,
    model: String,
    fallback_models: Vec<String>,
    messages: Vec<MessageParam>,
    prompt: String,
    estimated_tokens: f64,
    attempt: f64,
    tool_choice: ToolChoice,
}

#[derive(Serialize)]
#[serde(deny_unknown_fields)]
struct DerivedFileRequest {
    id: f64,
    paths: Vec<String>,
    #[serde(rename = "postCompactHooks")]
    post_compact_hooks: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DerivedPreCompactRequest {
    id: f64,
    trigger: String,
    instructions: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
enum DerivedRequest {
    PreCompact(DerivedPreCompactRequest),
    Summary(DerivedSummaryRequest),
    CollapseSegment(DerivedSummaryRequest),
    Precompute(DerivedSummaryRequest),
    Files(DerivedFileRequest),
}

/// As text and as a tree: serde_json's two serializers.
fn json<T: Serialize>(value: &T) -> String {
    let text = serde_json::to_string(value).unwrap();
    format!("{text} {}", serde_json::to_value(value).unwrap())
}

#[test]
fn call_statuses_write_what_the_derive_wrote() {
    let pairs = [
        (CallStatus::Proceed, DerivedCallStatus::Proceed),
        (
            CallStatus::Warn { tokens_left: 12.0 },
            DerivedCallStatus::Warn { tokens_left: 12.0 },
        ),
        (
            CallStatus::CompactionDue { over_by: 0.5 },
            DerivedCallStatus::CompactionDue { over_by: 0.5 },
        ),
        (
            CallStatus::WaitForCollapse { pending: 3.0 },
            DerivedCallStatus::WaitForCollapse { pending: 3.0 },
        ),
        (
            CallStatus::Blocked { over_by: 1e21 },
            DerivedCallStatus::Blocked { over_by: 1e21 },
        ),
    ];
    for (ours, derived) in pairs {
        assert_eq!(json(&ours), json(&derived));
    }
}

#[test]
fn requests_write_what_the_derive_wrote() {
    let messages = || -> Vec<MessageParam> {
        serde_json::from_str(
            r#"[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}]},
                {"role":"system","content":"s","clear_at":{"n":2.50}}]"#,
        )
        .unwrap()
    };
    let purposes = [
        Purpose::Compact,
        Purpose::Precompute,
        Purpose::CollapseSegment {
            first_turn: 1.0,
            last_turn: 4.0,
        },
    ];
    let summary = |purpose: &Purpose| {
        let (fallback_models, prompt) = (vec!["b".to_owned(), "c".to_owned()], "sum \"up\"".to_owned());
        let ours = SummaryRequest {
            id: 7.0,
            purpose: purpose.clone(),
            model: "m".into(),
            fallback_models: fallback_models.clone().into(),
            messages: serde_json::from_str(&serde_json::to_string(&messages()).unwrap()).unwrap(),
            prompt: prompt.as_str().into(),
            estimated_tokens: 1234.0,
            attempt: 2.0,
            tool_choice: ToolChoice::None,
        };
        let derived = DerivedSummaryRequest {
            id: 7.0,
            purpose: purpose.clone(),
            model: "m".into(),
            fallback_models,
            messages: messages(),
            prompt,
            estimated_tokens: 1234.0,
            attempt: 2.0,
            tool_choice: ToolChoice::None,
        };
        (ours, derived)
    };
    for purpose in &purposes {
        let (ours, derived) = summary(purpose);
        assert_eq!(json(&ours), json(&derived));
        let wrapped = [
            (
                Request::Summary(summary(purpose).0),
                DerivedRequest::Summary(summary(purpose).1),
            ),
            (
                Request::CollapseSegment(summary(purpose).0),
                DerivedRequest::CollapseSegment(summary(purpose).1),
            ),
            (
                Request::Precompute(summary(purpose).0),
                DerivedRequest::Precompute(summary(purpose).1),
            ),
        ];
        for (ours, derived) in wrapped {
            assert_eq!(json(&ours), json(&derived));
        }
    }
    for instructions in [None, Some("keep the tests".to_owned())] {
        let ours = Request::PreCompact(PreCompactRequest {
            id: 1.0,
            trigger: "auto".into(),
            instructions: instructions.clone(),
        });
        let derived = DerivedRequest::PreCompact(DerivedPreCompactRequest {
            id: 1.0,
            trigger: "auto".into(),
            instructions,
        });
        assert_eq!(json(&ours), json(&derived));
    }
    for (paths, hooks) in [
        (vec![], false),
        (vec!["a.rs".to_owned(), "b/c.md".to_owned()], true),
    ] {
        let ours = Request::Files(FileRequest {
            id: 3.0,
            paths: paths.clone(),
            post_compact_hooks: hooks,
        });
        let derived = DerivedRequest::Files(DerivedFileRequest {
            id: 3.0,
            paths,
            post_compact_hooks: hooks,
        });
        assert_eq!(json(&ours), json(&derived));
    }
}
