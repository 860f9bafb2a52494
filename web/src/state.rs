//! What the visitor set, as a pure reducer (`State` + `Action`), unit-tested
//! natively. The engine turns it into lines; this module only parses text.

use std::rc::Rc;

use compaction_core::thresholds::{RawThresholdSettings, ThresholdSettings, Thresholds};
use yew::Reducible;

/// The controls' values, exactly as typed.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxState {
    /// The context window field.
    pub window: String,
    /// The max output tokens field.
    pub max_output: String,
}

impl Default for SandboxState {
    /// The R1.3 worked example.
    fn default() -> Self {
        Self {
            window: "200000".to_owned(),
            max_output: "20000".to_owned(),
        }
    }
}

/// A change the visitor made.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The window field now reads this text.
    SetWindow(String),
    /// The max output field now reads this text.
    SetMaxOutput(String),
}

impl Reducible for SandboxState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::SetWindow(text) => next.window = text,
            Action::SetMaxOutput(text) => next.max_output = text,
        }
        Rc::new(next)
    }
}

impl SandboxState {
    /// The engine's lines for these settings, or a message to show instead.
    /// An empty max output field means "not set" (the reserve is its cap).
    pub fn thresholds(&self) -> Result<Thresholds, String> {
        let window =
            parse_number("window", &self.window)?.ok_or_else(|| "enter a context window size".to_owned())?;
        let raw = RawThresholdSettings {
            window,
            max_output_tokens: parse_number("max output", &self.max_output)?,
            ..RawThresholdSettings::default()
        };
        ThresholdSettings::try_from(&raw)
            .and_then(|settings| Thresholds::compute(&settings))
            .map_err(|err| err.to_string())
    }
}

/// Text → number; `Ok(None)` for an empty field. The engine judges the value.
fn parse_number(label: &str, text: &str) -> Result<Option<f64>, String> {
    let text = text.trim().replace(['_', ','], "");
    if text.is_empty() {
        return Ok(None);
    }
    text.parse::<f64>()
        .map(Some)
        .map_err(|_| format!("{label}: “{text}” is not a number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(actions: impl IntoIterator<Item = Action>) -> Rc<SandboxState> {
        actions
            .into_iter()
            .fold(Rc::new(SandboxState::default()), |state, action| {
                state.reduce(action)
            })
    }

    #[test]
    fn default_is_the_r1_3_example() {
        let t = SandboxState::default().thresholds().unwrap();
        assert_eq!(
            [t.budget, t.precompute, t.warn, t.compact, t.blocked],
            [180_000, 144_000, 147_000, 167_000, 177_000]
        );
    }

    #[test]
    fn actions_change_the_lines() {
        let state = after([
            Action::SetWindow("1,000,000".into()),
            Action::SetMaxOutput("32000".into()),
        ]);
        let t = state.thresholds().unwrap();
        assert_eq!(
            [t.budget, t.precompute, t.warn, t.compact, t.blocked],
            [980_000, 784_000, 947_000, 967_000, 977_000]
        );
    }

    #[test]
    fn engine_errors_are_shown_not_swallowed() {
        let err = after([Action::SetWindow("10000".into())])
            .thresholds()
            .unwrap_err();
        assert!(err.contains("`window` = 10000"), "{err}");
        let err = after([Action::SetMaxOutput("lots".into())])
            .thresholds()
            .unwrap_err();
        assert!(err.contains("not a number"), "{err}");
        let err = after([Action::SetWindow(" ".into())]).thresholds().unwrap_err();
        assert!(err.contains("enter"), "{err}");
    }

    #[test]
    fn empty_max_output_means_the_reserve_cap() {
        let t = after([Action::SetMaxOutput(String::new())]).thresholds().unwrap();
        assert_eq!(t.reserve, 20_000);
    }
}
