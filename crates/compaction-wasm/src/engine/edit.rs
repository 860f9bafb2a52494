//! `Engine`'s history edits: the host's context, a swapped-in summary, a
//! reported overflow, manual compaction, pins and expanding a compaction.

use compaction_core::compact::{self as core_compact, CompactOptions};
use compaction_core::message::Uuid;
use wasm_bindgen::prelude::*;

use super::{read_tokens, Engine};
use crate::dto;
use crate::error::{js_error, At, INVALID_ARGUMENT};
use crate::js::{from_js, opt_text, string_fields, text, to_js};

#[wasm_bindgen]
impl Engine {
    /// Registers the context you hold outside the messages, restored after
    /// each compaction (SPEC R7.7): your plan and task list (otherwise the
    /// last `ExitPlanMode` plan and `TodoWrite` list in the history are
    /// used), each skill's content by name (restored when the history
    /// invoked it), MCP servers' instructions. Replaces what was registered.
    #[wasm_bindgen(js_name = setContext)]
    pub fn set_context(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ContextItem[]")] items: JsValue,
    ) -> Result<(), JsValue> {
        let rows = string_fields(&items, ["kind", "name", "content"]).map_err(|e| {
            js_error(
                INVALID_ARGUMENT,
                "items",
                &format!("items must be an array of {{ kind, name, content }}: items{e}"),
            )
        })?;
        let mut items = Vec::with_capacity(rows.len());
        for (i, [kind, name, content]) in rows.into_iter().enumerate() {
            let kind = kind
                .as_deref()
                .and_then(dto::AttachmentKind::from_name)
                .ok_or_else(|| {
                    js_error(
                        INVALID_ARGUMENT,
                        &format!("items[{i}].kind"),
                        &format!("items[{i}].kind must be \"plan\", \"taskState\", \"skill\" or \"mcp\""),
                    )
                })?;
            let (Some(name), Some(content)) = (name, content) else {
                return Err(js_error(
                    INVALID_ARGUMENT,
                    &format!("items[{i}]"),
                    &format!("items[{i}] must have a `name` and a `content`"),
                ));
            };
            items.push(core_compact::ContextItem {
                kind: kind.into(),
                name,
                content,
            });
        }
        self.with(|s| Ok(s.engine.set_context(items).at("items")?))
    }

    /// Swaps in a summary written elsewhere (SPEC R9.4: the Anthropic API's
    /// background compaction, or your own summariser) for exactly the
    /// messages `uuids` it was made from. They must still open the view in
    /// order and end on a legal cut; otherwise the outcome is `failed` and
    /// the view stays.
    ///
    /// `summary` is the summary's text, or a signed `compaction` block
    /// (`{ type: "compaction", content, encrypted_content, signature?,
    /// tool_changes? }`, R13.2): the block is kept byte for byte and nothing
    /// is inserted between it and the messages after the summarised ones.
    #[wasm_bindgen(js_name = swapInSummary, unchecked_return_type = "Outcome")]
    pub fn swap_in_summary(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string[]")] uuids: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string | CompactionBlock")] summary: JsValue,
    ) -> Result<JsValue, JsValue> {
        let uuids = crate::js::strings(&uuids).map_err(|e| {
            js_error(
                INVALID_ARGUMENT,
                "uuids",
                &compaction_core::concat("uuids must be an array of message uuids: ", &e),
            )
        })?;
        let uuids: Vec<Uuid> = uuids.into_iter().map(Uuid).collect();
        if let Some(text) = summary.as_string() {
            return self.with(|s| {
                let out = s.engine.swap_in_summary(&uuids, &text);
                to_js(&s.outcome(out))
            });
        }
        let block: compaction_core::message::Block = from_js(&summary).map_err(|e| {
            js_error(
                INVALID_ARGUMENT,
                "summary",
                &compaction_core::concat("summary must be the summary's text or a compaction block: ", &e),
            )
        })?;
        if block.kind() != "compaction" {
            return Err(js_error(
                INVALID_ARGUMENT,
                "summary",
                &format!(
                    "summary must be the summary's text or a compaction block, got a `{}` block",
                    block.kind()
                ),
            ));
        }
        self.with(|s| {
            let out = s.engine.swap_in_compaction(&uuids, block);
            to_js(&s.outcome(out))
        })
    }

    /// The API refused the call as too long (`isPromptTooLong(error)`):
    /// the reactive tier (SPEC R8.1). First collapse overflow recovery, on
    /// the next refusal of the same call an emergency compaction, after that
    /// `failed`. `tokens`: the prompt's real size when the error states it
    /// (`promptTooLongTokens(error)`); the count is recalibrated to it.
    #[wasm_bindgen(js_name = promptTooLong, unchecked_return_type = "Outcome")]
    pub fn prompt_too_long(&self, tokens: Option<js_sys::Number>) -> Result<JsValue, JsValue> {
        // A `Number` only by its type: whatever the caller passed is checked here.
        let tokens = match tokens
            .map(JsValue::from)
            .filter(|t| !t.is_null() && !t.is_undefined())
        {
            None => None,
            Some(t) => Some(read_tokens(&t)?),
        };
        self.with(|s| {
            let r = match tokens {
                Some(t) => s.engine.prompt_too_long_at(t),
                None => s.engine.prompt_too_long(),
            };
            to_js(&s.outcome(r))
        })
    }

    /// A manual compaction (`/compact [instructions]`). Its first request
    /// is your PreCompact hooks' (`preCompact`); answer the outcome's
    /// `requests` (or `prepare(host)` does).
    #[wasm_bindgen(unchecked_return_type = "Outcome")]
    pub fn compact(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null")] instructions: JsValue,
    ) -> Result<JsValue, JsValue> {
        let instructions = opt_text(&instructions, "instructions")?;
        self.with(|s| {
            let out = s.engine.compact(CompactOptions { instructions });
            to_js(&s.outcome(out))
        })
    }

    /// Pins a message: never snipped or cleared; kept verbatim after a
    /// compaction.
    pub fn pin(&self, #[wasm_bindgen(unchecked_param_type = "string")] uuid: JsValue) -> Result<(), JsValue> {
        self.with(|s| {
            let uuid = Uuid(text(&uuid, "uuid", false)?);
            let was = s.engine.is_pinned(&uuid);
            s.engine.pin(&uuid).at("uuid")?;
            if !was {
                s.log_pinned(&uuid, true);
            }
            Ok(())
        })
    }

    /// Unpins a message (unknown uuids change nothing).
    pub fn unpin(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] uuid: JsValue,
    ) -> Result<(), JsValue> {
        self.with(|s| {
            let uuid = Uuid(text(&uuid, "uuid", false)?);
            if s.engine.is_pinned(&uuid) {
                s.engine.unpin(&uuid);
                s.log_pinned(&uuid, false);
            }
            Ok(())
        })
    }

    /// The pinned uuids, sorted.
    pub fn pinned(&self) -> Result<Vec<String>, JsValue> {
        self.read(|s| Ok(s.engine.pinned()))
    }

    /// Undoes a compaction in the view: the entries its summary (`uuid`)
    /// replaced come back. Returns the step.
    #[wasm_bindgen(unchecked_return_type = "Step")]
    pub fn expand(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] uuid: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.with(|s| {
            let uuid = Uuid(text(&uuid, "uuid", false)?);
            let step = s.engine.expand(&uuid).at("uuid")?;
            s.log_expanded(&uuid);
            to_js(&step)
        })
    }
}
