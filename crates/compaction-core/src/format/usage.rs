//! Reported usage in a format's shape: what the provider said the request
//! behind a model reply cost, as the engine's [`Usage`] (R1.6: the count is
//! the last reported prompt plus the estimate of what came after it).
//!
//! Every provider but Anthropic reports the prompt as one total with the
//! cached part inside it; Anthropic reports the uncached, cache-written and
//! cache-read parts side by side. The engine's [`Usage`] is Anthropic's, so
//! a total becomes `input_tokens = total − cached` beside the cached parts,
//! and `prompt_tokens()` gives the total back.
//!
//! | format | prompt total | cache read | cache written | output |
//! |---|---|---|---|---|
//! | `ai-sdk` (`LanguageModelUsage`) | `inputTokens` | `inputTokenDetails.cacheReadTokens` (or `cachedInputTokens`) | `inputTokenDetails.cacheWriteTokens` | `outputTokens` |
//! | `openai-chat` | `prompt_tokens` | `prompt_tokens_details.cached_tokens` | — | `completion_tokens` |
//! | `openai-responses` | `input_tokens` | `input_tokens_details.cached_tokens` | — | `output_tokens` |
//! | `langchain` (`usage_metadata`) | `input_tokens` | `input_token_details.cache_read` | `input_token_details.cache_creation` | `output_tokens` |
//!
//! A counter absent or `null` is 0 (the AI SDK leaves what a provider did
//! not report `undefined`); any other value must be a whole number from 0
//! to 2^53 − 1, and the cached parts may not exceed the total.

use super::{object, Converted, Format, FormatError};
use crate::message::{Extra, Json, Role, Usage, MAX_TOKENS};

/// The field names of one format's usage.
struct Shape {
    total: &'static str,
    output: &'static str,
    /// The object holding the cache counters, when there is one.
    details: &'static str,
    read: &'static str,
    write: &'static str,
    /// The cache counters beside the total when `details` is absent
    /// (Anthropic's; the AI SDK's older `cachedInputTokens`).
    top_read: &'static str,
    top_write: &'static str,
    /// Whether the total holds the cached parts (every provider but Anthropic).
    inside: bool,
}

const ANTHROPIC: Shape = Shape {
    total: "input_tokens",
    output: "output_tokens",
    details: "",
    read: "",
    write: "",
    top_read: "cache_read_input_tokens",
    top_write: "cache_creation_input_tokens",
    inside: false,
};
const AI_SDK: Shape = Shape {
    total: "inputTokens",
    output: "outputTokens",
    details: "inputTokenDetails",
    read: "cacheReadTokens",
    write: "cacheWriteTokens",
    top_read: "cachedInputTokens",
    top_write: "",
    inside: true,
};
const OPENAI_CHAT: Shape = Shape {
    total: "prompt_tokens",
    output: "completion_tokens",
    details: "prompt_tokens_details",
    read: "cached_tokens",
    write: "",
    top_read: "",
    top_write: "",
    inside: true,
};
const OPENAI_RESPONSES: Shape = Shape {
    total: "input_tokens",
    output: "output_tokens",
    details: "input_tokens_details",
    ..OPENAI_CHAT
};
const LANGCHAIN: Shape = Shape {
    total: "input_tokens",
    output: "output_tokens",
    details: "input_token_details",
    read: "cache_read",
    write: "cache_creation",
    top_read: "",
    top_write: "",
    inside: true,
};

/// Reads the usage `json` (an object in `format`'s shape) reported for a
/// model reply, its errors named under `path` (`usage`:
/// `usage.prompt_tokens_details.cached_tokens`). `None` when it reports
/// nothing (every counter 0 or absent). Anthropic's is read as its four
/// counters (a message's own `usage`, read where messages are, also takes
/// `iterations`).
pub fn read_usage(format: Format, json: &str, path: &str) -> Result<Option<Usage>, FormatError> {
    let value = Json::parse(json).map_err(|e| FormatError::new(path, format!("not JSON: {e}")))?;
    let o = object(&value, path)?;
    let shape = match format {
        Format::Anthropic => &ANTHROPIC,
        Format::AiSdk => &AI_SDK,
        Format::OpenAiChat => &OPENAI_CHAT,
        Format::OpenAiResponses => &OPENAI_RESPONSES,
        Format::LangChain => &LANGCHAIN,
    };
    let total = count(&o, shape.total, path)?;
    let output_tokens = count(&o, shape.output, path)?;
    let (read, write) = match o.get(shape.details).filter(|d| !d.is_null()) {
        Some(d) => {
            let dpath = format!("{path}.{}", shape.details);
            let d = object(d, &dpath)?;
            (count(&d, shape.read, &dpath)?, count(&d, shape.write, &dpath)?)
        }
        None => (
            count(&o, shape.top_read, path)?,
            count(&o, shape.top_write, path)?,
        ),
    };
    let cached = if shape.inside {
        read.saturating_add(write)
    } else {
        0
    };
    if cached > total {
        return Err(FormatError::new(
            format!("{path}.{}", shape.details),
            format!(
                "{cached} cached tokens are more than the prompt's {total} ({path}.{}): the cached part is counted inside the total",
                shape.total
            ),
        ));
    }
    let usage = Usage {
        input_tokens: total - cached,
        output_tokens,
        cache_creation_input_tokens: write,
        cache_read_input_tokens: read,
    };
    // The count adds them up (R1.6): the sum must be a token count too.
    let sum = [
        total,
        output_tokens,
        if shape.inside {
            0
        } else {
            read.saturating_add(write)
        },
    ]
    .iter()
    .fold(0u64, |a, &n| a.saturating_add(n));
    if sum > MAX_TOKENS {
        return Err(FormatError::new(
            path,
            format!("its counters add up to {sum} tokens, more than a token count holds (2^53 - 1)"),
        ));
    }
    Ok((usage.prompt_tokens() > 0 || output_tokens > 0).then_some(usage))
}

/// The counter `o[key]`: absent or `null` is 0; anything else must be a
/// token count, written as digits (as `JSON.stringify` writes every whole
/// number below 10^21; read by hand, so no float parser is needed).
fn count(o: &Extra, key: &str, path: &str) -> Result<u64, FormatError> {
    let Some(v) = o.get(key).filter(|v| !key.is_empty() && !v.is_null()) else {
        return Ok(0);
    };
    let text = v.text();
    let digits = !text.is_empty() && text.len() <= 16 && text.bytes().all(|b| b.is_ascii_digit());
    match text.parse::<u64>() {
        Ok(n) if digits && n <= MAX_TOKENS => Ok(n),
        _ => Err(FormatError::new(
            crate::text::concat3(path, ".", key),
            format!(
                "{} is not a token count (a whole number from 0 to 2^53 - 1)",
                v.text()
            ),
        )),
    }
}

/// Gives `usage` to the model reply of `converted`: its last assistant
/// message (not a leading system one). `false` when there is none.
pub fn report_usage(converted: &mut [Converted], usage: Usage) -> bool {
    match converted
        .iter_mut()
        .rev()
        .find(|c| !c.preamble && c.role == Role::Assistant)
    {
        Some(c) => {
            c.usage = Some(usage);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(format: Format, json: &str) -> Result<Option<Usage>, FormatError> {
        read_usage(format, json, "usage")
    }

    fn usage(input: u64, output: u64, write: u64, read: u64) -> Option<Usage> {
        Some(Usage {
            input_tokens: input,
            output_tokens: output,
            cache_creation_input_tokens: write,
            cache_read_input_tokens: read,
        })
    }

    #[test]
    fn each_format_reads_its_own_shape_with_the_cached_part_inside_the_total() {
        let ai = r#"{"inputTokens":1000,"inputTokenDetails":{"noCacheTokens":700,"cacheReadTokens":200,"cacheWriteTokens":100},"outputTokens":50,"outputTokenDetails":{"textTokens":50},"totalTokens":1050}"#;
        assert_eq!(read(Format::AiSdk, ai).unwrap(), usage(700, 50, 100, 200));
        // The AI SDK's older shape: `cachedInputTokens` at the top.
        let old = r#"{"inputTokens":1000,"outputTokens":5,"cachedInputTokens":400}"#;
        assert_eq!(read(Format::AiSdk, old).unwrap(), usage(600, 5, 0, 400));
        let chat = r#"{"prompt_tokens":9000,"completion_tokens":12,"total_tokens":9012,"prompt_tokens_details":{"cached_tokens":8000}}"#;
        assert_eq!(read(Format::OpenAiChat, chat).unwrap(), usage(1000, 12, 0, 8000));
        let responses = r#"{"input_tokens":300,"input_tokens_details":{"cached_tokens":0},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":3},"total_tokens":307}"#;
        assert_eq!(
            read(Format::OpenAiResponses, responses).unwrap(),
            usage(300, 7, 0, 0)
        );
        let langchain = r#"{"input_tokens":500,"output_tokens":9,"total_tokens":509,"input_token_details":{"cache_read":100,"cache_creation":50}}"#;
        assert_eq!(
            read(Format::LangChain, langchain).unwrap(),
            usage(350, 9, 50, 100)
        );
        // Anthropic's parts side by side, as the Messages API reports them.
        let anthropic = r#"{"input_tokens":10,"output_tokens":2,"cache_creation_input_tokens":30,"cache_read_input_tokens":400}"#;
        assert_eq!(read(Format::Anthropic, anthropic).unwrap(), usage(10, 2, 30, 400));
        assert_eq!(
            read(Format::Anthropic, anthropic)
                .unwrap()
                .unwrap()
                .prompt_tokens(),
            440
        );
    }

    #[test]
    fn unreported_counters_are_zero_and_nothing_reported_is_none() {
        assert_eq!(read(Format::AiSdk, r#"{"inputTokenDetails":{}}"#).unwrap(), None);
        assert_eq!(
            read(
                Format::OpenAiChat,
                r#"{"prompt_tokens":null,"prompt_tokens_details":null}"#
            )
            .unwrap(),
            None
        );
        assert_eq!(
            read(Format::AiSdk, r#"{"inputTokens":12}"#).unwrap(),
            usage(12, 0, 0, 0)
        );
    }

    #[test]
    fn a_value_that_is_not_a_token_count_is_refused_naming_its_path() {
        for (format, json, path) in [
            (
                Format::OpenAiChat,
                r#"{"prompt_tokens":1.5}"#,
                "usage.prompt_tokens",
            ),
            (
                Format::OpenAiChat,
                r#"{"prompt_tokens":"12"}"#,
                "usage.prompt_tokens",
            ),
            (Format::AiSdk, r#"{"inputTokens":-1}"#, "usage.inputTokens"),
            (
                Format::AiSdk,
                r#"{"inputTokens":10,"outputTokens":9007199254740992}"#,
                "usage.outputTokens",
            ),
            (
                Format::OpenAiResponses,
                r#"{"input_tokens":5,"input_tokens_details":{"cached_tokens":true}}"#,
                "usage.input_tokens_details.cached_tokens",
            ),
            (
                Format::LangChain,
                r#"{"input_tokens":5,"input_token_details":3}"#,
                "usage.input_token_details",
            ),
            (
                Format::OpenAiChat,
                r#"{"prompt_tokens":5,"prompt_tokens_details":{"cached_tokens":6}}"#,
                "usage.prompt_tokens_details",
            ),
            (Format::Anthropic, r#"{"input_tokens":-4}"#, "usage.input_tokens"),
            (Format::OpenAiChat, "12", "usage"),
            // Each a token count, their sum not (issue 27).
            (
                Format::AiSdk,
                r#"{"inputTokens":9007199254740991,"outputTokens":1}"#,
                "usage",
            ),
            (
                Format::Anthropic,
                r#"{"input_tokens":9007199254740991,"cache_read_input_tokens":9007199254740991}"#,
                "usage",
            ),
        ] {
            let err = read(format, json).unwrap_err();
            assert_eq!(err.path, path, "{json}: {err}");
        }
        let err = read(Format::OpenAiChat, r#"{"prompt_tokens":1.5}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "usage.prompt_tokens: 1.5 is not a token count (a whole number from 0 to 2^53 - 1)"
        );
        let err = read(
            Format::OpenAiChat,
            r#"{"prompt_tokens":5,"prompt_tokens_details":{"cached_tokens":6}}"#,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("6 cached tokens are more than the prompt's 5 (usage.prompt_tokens)"),
            "{err}"
        );
    }
}
