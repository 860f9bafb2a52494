//! The settings controls: labelled, keyboard-operable fields.
//!
//! Their props compare equal whatever their `on_change`: every control's
//! callback only dispatches an action to the page's state (through a
//! handle that stays valid), so the one from an earlier render does what
//! a new one would. Compared by pointer, the closure made on every render
//! would draw every control again on every change (with 200 more groups,
//! hundreds of file switches).

use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

/// Props of [`NumberField`].
#[derive(Debug, Clone, Properties)]
pub struct NumberFieldProps {
    /// The input's id (and the label's `for`).
    pub id: AttrValue,
    /// The visible label.
    pub label: AttrValue,
    /// A hint under the label.
    pub hint: AttrValue,
    /// The text currently in the field.
    pub value: AttrValue,
    /// Called with the new text on every keystroke.
    pub on_change: Callback<String>,
    /// Smallest value the arrows go to.
    #[prop_or(AttrValue::Static("0"))]
    pub min: AttrValue,
    /// Arrow-key step.
    #[prop_or(AttrValue::Static("1"))]
    pub step: AttrValue,
    /// What is wrong with the text, if anything: said at the field.
    #[prop_or_default]
    pub error: Option<AttrValue>,
}

/// A labelled number field that reports every edit.
#[component]
pub fn NumberField(props: &NumberFieldProps) -> Html {
    let on_change = props.on_change.clone();
    let oninput = Callback::from(move |e: InputEvent| {
        on_change.emit(e.target_unchecked_into::<HtmlInputElement>().value());
    });
    let hint_id = format!("{}-hint", props.id);
    let error_id = format!("{}-error", props.id);
    let described = match &props.error {
        Some(_) => format!("{error_id} {hint_id}"),
        None => hint_id.clone(),
    };
    html! {
        <div class={classes!("field", props.error.is_some().then_some("invalid"))}>
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            <input id={props.id.clone()} type="number" inputmode="numeric" min={props.min.clone()} step={props.step.clone()}
                   value={props.value.clone()} {oninput} aria-describedby={described}
                   aria-invalid={props.error.is_some().then_some("true")} />
            if let Some(error) = &props.error {
                <small id={error_id} class="field-error" role="alert">{ error.clone() }</small>
            }
            <small id={hint_id}>{ props.hint.clone() }</small>
        </div>
    }
}

/// Props of [`Check`].
#[derive(Debug, Clone, Properties)]
pub struct CheckProps {
    /// The input's id.
    pub id: AttrValue,
    /// The visible label.
    pub label: AttrValue,
    /// Whether it is ticked.
    pub checked: bool,
    /// Called with the new value.
    pub on_change: Callback<bool>,
}

/// A labelled checkbox.
#[component]
pub fn Check(props: &CheckProps) -> Html {
    let on_change = props.on_change.clone();
    let onchange = Callback::from(move |e: Event| {
        on_change.emit(e.target_unchecked_into::<HtmlInputElement>().checked());
    });
    html! {
        <div class="check">
            <input id={props.id.clone()} type="checkbox" checked={props.checked} {onchange} />
            <label for={props.id.clone()}>{ props.label.clone() }</label>
        </div>
    }
}

/// Props of [`Choice`].
#[derive(Debug, Clone, Properties)]
pub struct ChoiceProps {
    /// The select's id.
    pub id: AttrValue,
    /// The visible label.
    pub label: AttrValue,
    /// `(value, text)` of each option.
    pub options: Vec<(AttrValue, AttrValue)>,
    /// The chosen value.
    pub value: AttrValue,
    /// Called with the chosen value.
    pub on_change: Callback<String>,
}

/// A labelled drop-down.
#[component]
pub fn Choice(props: &ChoiceProps) -> Html {
    let on_change = props.on_change.clone();
    let onchange = Callback::from(move |e: Event| {
        on_change.emit(e.target_unchecked_into::<HtmlSelectElement>().value());
    });
    html! {
        <div class="field">
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            <select id={props.id.clone()} {onchange}>
                { for props.options.iter().map(|(value, text)| html! {
                    <option value={value.clone()} selected={*value == props.value}>{ text.clone() }</option>
                }) }
            </select>
        </div>
    }
}

/// Props of [`TextArea`].
#[derive(Debug, Clone, Properties)]
pub struct TextAreaProps {
    /// The textarea's id.
    pub id: AttrValue,
    /// The visible label.
    pub label: AttrValue,
    /// A hint under the label.
    pub hint: AttrValue,
    /// The text.
    pub value: AttrValue,
    /// Called with the new text on every keystroke.
    pub on_change: Callback<String>,
}

/// A labelled multi-line text field.
#[component]
pub fn TextArea(props: &TextAreaProps) -> Html {
    let on_change = props.on_change.clone();
    let oninput = Callback::from(move |e: InputEvent| {
        on_change.emit(e.target_unchecked_into::<HtmlTextAreaElement>().value());
    });
    let hint_id = format!("{}-hint", props.id);
    html! {
        <div class="field wide">
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            <textarea id={props.id.clone()} rows="2" value={props.value.clone()} {oninput}
                      aria-describedby={hint_id.clone()} />
            <small id={hint_id}>{ props.hint.clone() }</small>
        </div>
    }
}

impl PartialEq for NumberFieldProps {
    fn eq(&self, o: &Self) -> bool {
        (
            &self.id,
            &self.label,
            &self.hint,
            &self.value,
            &self.min,
            &self.step,
            &self.error,
        ) == (&o.id, &o.label, &o.hint, &o.value, &o.min, &o.step, &o.error)
    }
}

impl PartialEq for CheckProps {
    fn eq(&self, o: &Self) -> bool {
        (&self.id, &self.label, self.checked) == (&o.id, &o.label, o.checked)
    }
}

impl PartialEq for ChoiceProps {
    fn eq(&self, o: &Self) -> bool {
        (&self.id, &self.label, &self.options, &self.value) == (&o.id, &o.label, &o.options, &o.value)
    }
}

impl PartialEq for TextAreaProps {
    fn eq(&self, o: &Self) -> bool {
        (&self.id, &self.label, &self.hint, &self.value) == (&o.id, &o.label, &o.hint, &o.value)
    }
}
