//! The settings controls: labelled, keyboard-operable number fields.

use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Props of [`NumberField`].
#[derive(Debug, Clone, PartialEq, Properties)]
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
}

/// A labelled number field that reports every edit.
#[component]
pub fn NumberField(props: &NumberFieldProps) -> Html {
    let on_change = props.on_change.clone();
    let oninput = Callback::from(move |e: InputEvent| {
        on_change.emit(e.target_unchecked_into::<HtmlInputElement>().value());
    });
    let hint_id = format!("{}-hint", props.id);
    html! {
        <div class="field">
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            <input id={props.id.clone()} type="number" inputmode="numeric" min="1000" step="1000"
                   value={props.value.clone()} {oninput} aria-describedby={hint_id.clone()} />
            <small id={hint_id}>{ props.hint.clone() }</small>
        </div>
    }
}
