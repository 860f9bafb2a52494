//! A boundary's `compactMetadata`, read field by field: every field a
//! Claude Code version is known to write is typed, everything else is
//! kept verbatim, so a boundary read and written back keeps every field.
//!
//! What each version writes (`../shared/fixtures/sessions-2/README.md`,
//! measured on ~310 automatic boundaries of 2.0.25 – 2.1.170):
//! - up to 2.1.74: `{trigger, preTokens}`;
//! - 2.1.81: `preCompactDiscoveredTools` (tool names);
//! - 2.1.122 – 2.1.148: `postTokens` and `durationMs` (the summary call,
//!   73 – 140 s);
//! - 2.1.170: `preservedSegment {headUuid, anchorUuid, tailUuid}` and
//!   `preservedMessages {anchorUuid, uuids, allUuids}`: the last turns
//!   kept verbatim after the summary (SPEC R7.9's preserved messages).
//!
//! SPEC R7.9 writes `preservedMessages` as a plain `[uuid…]` list and
//! `cumulativeDroppedTokens`; both are read too.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::model::{CompactMetadata, Fields, PreservedMessages, PreservedSegment};
use crate::message::{Json, Text, Uuid};

/// A uuid field of a JSON object, if it is a string.
fn uuid_field(object: &Json, key: &str) -> Option<Uuid> {
    object.str_field(key).map(|u| Uuid::from(u.as_ref()))
}

/// The strings of a JSON list (its text), as uuids (other items skipped).
pub(super) fn uuid_list(text: &str) -> Option<Vec<Uuid>> {
    let items = serde_json::from_str::<Vec<&RawValue>>(text).ok()?;
    Some(
        items
            .iter()
            .filter_map(|item| serde_json::from_str::<Text>(item.get()).ok())
            .map(|t| Uuid::from(t.0.as_ref()))
            .collect(),
    )
}

/// The strings of a JSON list, when every item is one.
fn string_list(list: &Json) -> Option<Vec<String>> {
    let items = serde_json::from_str::<Vec<Text>>(list.text()).ok()?;
    Some(items.into_iter().map(|t| t.0.into_owned()).collect())
}

/// A list of uuids in an object's field, when it is a list.
fn uuid_list_field(object: &Json, key: &str) -> Option<Vec<Uuid>> {
    object
        .field::<&RawValue>(key)
        .and_then(|list| uuid_list(list.get()))
}

/// Reads every `compactMetadata` variant real files and the spec carry
/// (see the module docs). A typed field of the wrong shape stays verbatim
/// among the others.
pub(super) fn compact_metadata(mut meta: Fields) -> CompactMetadata {
    let mut take_u64 = |key: &str| match meta.get(key).and_then(Json::read::<u64>) {
        Some(n) => {
            meta.remove(key);
            Some(n)
        }
        None => None,
    };
    let pre_tokens = take_u64("preTokens");
    let post_tokens = take_u64("postTokens");
    let duration_ms = take_u64("durationMs");
    let cumulative_dropped_tokens = take_u64("cumulativeDroppedTokens");
    let trigger = meta.str_field("trigger").map(Cow::into_owned);
    if trigger.is_some() {
        meta.remove("trigger");
    }
    let pre_compact_discovered_tools = meta.get("preCompactDiscoveredTools").and_then(string_list);
    if pre_compact_discovered_tools.is_some() {
        meta.remove("preCompactDiscoveredTools");
    }
    let preserved_segment = match meta.get("preservedSegment") {
        Some(seg) if seg.is_object() => {
            let segment = PreservedSegment {
                head_uuid: uuid_field(seg, "headUuid"),
                anchor_uuid: uuid_field(seg, "anchorUuid"),
                tail_uuid: uuid_field(seg, "tailUuid"),
            };
            meta.remove("preservedSegment");
            Some(segment)
        }
        _ => None,
    };
    let preserved_messages = match meta.get("preservedMessages") {
        Some(obj) if obj.is_object() => Some(PreservedMessages {
            anchor_uuid: uuid_field(obj, "anchorUuid"),
            uuids: uuid_list_field(obj, "uuids").unwrap_or_default(),
            all_uuids: uuid_list_field(obj, "allUuids"),
        }),
        Some(list) => uuid_list(list.text()).map(|uuids| PreservedMessages {
            anchor_uuid: None,
            uuids,
            all_uuids: None,
        }),
        None => None,
    };
    if preserved_messages.is_some() {
        meta.remove("preservedMessages");
    }
    CompactMetadata {
        trigger,
        pre_tokens,
        post_tokens,
        duration_ms,
        cumulative_dropped_tokens,
        pre_compact_discovered_tools,
        preserved_segment,
        preserved_messages,
        extra: meta,
    }
}
