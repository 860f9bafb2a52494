//! A value written as the JSON text it had the last time, while it is
//! equal to that value: a decision's lines and `context_management` edit
//! are the same on most calls, and writing them field by field was a fifth
//! of `append` + `beforeCall` (a steady 10k-message engine, profiled).

use std::cell::RefCell;
use std::thread::LocalKey;

use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// The last value written and its text.
pub(crate) type Slot<T> = RefCell<Option<(T, Box<RawValue>)>>;

/// Writes `value`: the text kept in `slot` when the value kept there is
/// equal to it, else its own (which `slot` keeps next).
pub(crate) fn write<T, S>(slot: &'static LocalKey<Slot<T>>, value: &T, s: S) -> Result<S::Ok, S::Error>
where
    T: Serialize + Clone + PartialEq,
    S: Serializer,
{
    slot.with_borrow_mut(|kept| {
        let (last, text) = match kept.take() {
            Some((last, text)) if last == *value => (last, text),
            // Written, not parsed back: serde_json writes valid JSON.
            _ => (
                value.clone(),
                serde_json::value::to_raw_value(value).map_err(S::Error::custom)?,
            ),
        };
        let out = text.serialize(s);
        *kept = Some((last, text));
        out
    })
}

thread_local! {
    static LINES: Slot<crate::thresholds::Thresholds> = const { RefCell::new(None) };
    static EDITS: Slot<Option<compaction_core::api::ContextManagement>> = const { RefCell::new(None) };
}

/// `Decision.lines`.
pub(crate) fn lines<S: Serializer>(value: &crate::thresholds::Thresholds, s: S) -> Result<S::Ok, S::Error> {
    write(&LINES, value, s)
}

/// `Decision.contextManagement`.
pub(crate) fn edits<S: Serializer>(
    value: &Option<compaction_core::api::ContextManagement>,
    s: S,
) -> Result<S::Ok, S::Error> {
    write(&EDITS, value, s)
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    #[derive(Serialize)]
    struct Out {
        #[serde(serialize_with = "super::lines")]
        lines: crate::thresholds::Thresholds,
    }

    fn lines(window: u64) -> crate::thresholds::Thresholds {
        let settings = compaction_core::thresholds::ThresholdSettings::for_window(window);
        compaction_core::thresholds::Thresholds::compute(&settings)
            .unwrap()
            .into()
    }

    #[test]
    fn a_kept_text_is_written_only_for_an_equal_value() {
        for window in [200_000, 200_000, 1_000_000, 200_000] {
            let memo = serde_json::to_string(&Out { lines: lines(window) }).unwrap();
            let own = format!(
                r#"{{"lines":{}}}"#,
                serde_json::to_string(&lines(window)).unwrap()
            );
            assert_eq!(memo, own);
            // Through a `Value` too (the mirror tests write one).
            assert_eq!(
                serde_json::to_value(Out { lines: lines(window) }).unwrap()["lines"]["window"],
                window
            );
        }
    }
}
