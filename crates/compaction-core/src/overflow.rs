//! Is this API error a prompt-too-long (SPEC R8.1)? A pure classifier over
//! what any host has of an error: its HTTP status, its type or code, and its
//! message; and the prompt's real size when the message states it.
//!
//! Recognised (and nothing else):
//! - the Anthropic API's HTTP 400 `invalid_request_error` "prompt is too
//!   long: 236175 tokens > 200000 maximum", and its other form when the
//!   prompt plus `max_tokens` does not fit: "input length and `max_tokens`
//!   exceed context limit: 188000 + 32000 > 200000, decrease input length or
//!   `max_tokens` and try again" (the prompt is 188000);
//! - Claude Code's 413 `prompt_too_long` ("Prompt is too long");
//! - a reply whose `stop_reason` is `model_context_window_exceeded`;
//! - OpenAI's `context_length_exceeded` ("This model's maximum context length
//!   is 128000 tokens. However, your messages resulted in 130532 tokens."), and
//!   its "Input tokens exceed the configured limit of 272000 tokens. Your
//!   messages resulted in 289650 tokens." (the two wordings `@langchain/openai`
//!   wraps in a `ContextOverflowError`);
//! - LangChain's `ContextOverflowError` (its class name given as the kind);
//! - OpenAI-compatible local servers: vLLM's HTTP 400 "This model's maximum
//!   context length is 8192 tokens. However, your request has 9000 input
//!   tokens." (every wording vLLM has used says "maximum context length"),
//!   and llama.cpp's `exceed_context_size_error` ("request (9000 tokens)
//!   exceeds the available context size (8192 tokens)");
//! - Ollama's 400s (`server`, `llm/llama_server.go` and
//!   `x/mlxrunner/pipeline.go` in ollama/ollama): "the prompt is longer than
//!   the context length currently available to the model; …" (no size), and
//!   "input length (9000 tokens) exceeds the model's maximum context length
//!   (8192 tokens)"; a llama.cpp body it relays is read as llama.cpp's.
//!
//! Not recognised: every other 400, a 413 `request_too_large` (a request
//! body over the size limit, which no compaction of the prompt's tokens is
//! sure to fix), vLLM's "'max_tokens' … is too large" and Anthropic's
//! "input length and `max_tokens` exceed context limit" when `max_tokens`
//! alone is the whole window (no shorter prompt fits it), rate limits,
//! overloads.

/// The codes that mean "the prompt does not fit the context window" whatever
/// the status: OpenAI's error code, the Messages API's stop reason, Claude
/// Code's error type, llama.cpp's error type, LangChain's error class.
const OVERFLOW_CODES: [&str; 5] = [
    "context_length_exceeded",
    "model_context_window_exceeded",
    "prompt_too_long",
    "exceed_context_size_error",
    "ContextOverflowError",
];

/// The Anthropic API's two wordings.
const ANTHROPIC_WORDINGS: [&str; 2] = ["prompt is too long", "exceed context limit"];

/// OpenAI's, vLLM's, llama.cpp's and Ollama's wordings.
const OTHER_WORDINGS: [&str; 4] = [
    "maximum context length",
    "exceeds the available context size",
    "input tokens exceed the configured limit",
    "the prompt is longer than the context length",
];

/// What a host knows of an error (every field optional: a stop reason has
/// no status, a network error no type).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ErrorFacts<'a> {
    /// The HTTP status, when the error came from a response.
    pub status: Option<u16>,
    /// The error's type (`invalid_request_error`, `prompt_too_long`, …), or
    /// a reply's `stop_reason`.
    pub kind: Option<&'a str>,
    /// A further machine-readable code (OpenAI's `code`:
    /// `context_length_exceeded`).
    pub code: Option<&'a str>,
    /// The error's human-readable message.
    pub message: Option<&'a str>,
}

/// What a prompt-too-long error states about the prompt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PromptTooLong {
    /// The prompt's real size in tokens, when the message states it.
    pub tokens: Option<u64>,
    /// The model's maximum, when the message states it.
    pub maximum: Option<u64>,
}

/// `Some` when the error is a prompt-too-long (R8.1), with the sizes its
/// message states; `None` for every other error.
pub fn classify(facts: &ErrorFacts<'_>) -> Option<PromptTooLong> {
    let message = facts.message.unwrap_or("");
    let coded = [facts.kind, facts.code]
        .into_iter()
        .flatten()
        .any(|k| OVERFLOW_CODES.contains(&k));
    // The Anthropic API's wording, under the statuses it comes with (400;
    // 413 as Claude Code reports it; none when only the text is left).
    let worded = matches!(facts.status, None | Some(400) | Some(413))
        && matches!(facts.kind, None | Some("invalid_request_error") | Some("error"))
        && contains_any(message, &ANTHROPIC_WORDINGS);
    // OpenAI's and vLLM's wording ("maximum context length is N tokens"),
    // llama.cpp's ("exceeds the available context size"), Ollama's: 400s
    // whatever their type (vLLM's is `BadRequestError`, its `code` the
    // number 400).
    let local = matches!(facts.status, None | Some(400)) && contains_any(message, &OTHER_WORDINGS);
    let too_large = [facts.kind, facts.code]
        .into_iter()
        .flatten()
        .any(|k| k == "request_too_large");
    if too_large || !(coded || worded || local) || completion_fills_window(message) {
        return None;
    }
    Some(sizes(message))
}

/// Whether `message` holds one of `wordings` (ASCII case-insensitive).
fn contains_any(message: &str, wordings: &[&str]) -> bool {
    wordings.iter().any(|w| find_ascii_ci(message, w).is_some())
}

/// The sizes a prompt-too-long message states, in the wordings the
/// providers use.
fn sizes(message: &str) -> PromptTooLong {
    // Anthropic: "input length and `max_tokens` exceed context limit: 188000
    // + 32000 > 200000": the prompt, the reply's reserve, the window.
    if let Some((input, _, maximum)) = limit_sizes(message) {
        return PromptTooLong {
            tokens: Some(input),
            maximum: Some(maximum),
        };
    }
    // Anthropic: "prompt is too long: 236175 tokens > 200000 maximum".
    if let Some(at) = find_ascii_ci(message, "prompt is too long") {
        let rest = &message[at..];
        if let Some((tokens, after)) = number_after(rest, "") {
            let maximum = rest[after..]
                .find('>')
                .and_then(|gt| number_after(&rest[after + gt..], ""))
                .map(|(n, _)| n);
            return PromptTooLong {
                tokens: Some(tokens),
                maximum,
            };
        }
    }
    // OpenAI: "maximum context length is 128000 tokens. However, your
    // messages resulted in 130532 tokens" or "… you requested 4200 tokens
    // (3000 in the messages, 1200 in the completion)".
    let maximum = number_after(message, "maximum context length is").map(|(n, _)| n);
    let in_messages = find_ascii_ci(message, " in the messages").and_then(|end| {
        // Byte by byte (ASCII: `rfind`'s index), as tokens::file_bytes.
        let start = message[..end].bytes().rposition(|b| b == b'(')?;
        number_after(&message[start..end], "").map(|(n, _)| n)
    });
    // vLLM: "your request has 9000 input tokens", "your prompt contains (at
    // least) 9000 input tokens" (not its "… contains 40000 characters").
    let input = ["request has", "prompt contains at least", "prompt contains"]
        .iter()
        .find_map(|m| number_followed_by(message, m, " input tokens"));
    // llama.cpp: "request (9000 tokens) exceeds the available context size
    // (8192 tokens)"; Ollama: "input length (9000 tokens) exceeds the
    // model's maximum context length (8192 tokens)".
    let llama = number_followed_by(message, "request (", " tokens)")
        .or_else(|| number_followed_by(message, "input length (", " tokens)"));
    let tokens = in_messages
        .or(input)
        .or(llama)
        .or_else(|| number_after(message, "resulted in").map(|(n, _)| n))
        .or_else(|| number_after(message, "you requested").map(|(n, _)| n));
    let maximum = maximum
        .or_else(|| number_followed_by(message, "context size (", " tokens)"))
        .or_else(|| number_followed_by(message, "maximum context length (", " tokens)"))
        .or_else(|| number_after(message, "configured limit of").map(|(n, _)| n));
    PromptTooLong { tokens, maximum }
}

/// Anthropic's "exceed context limit: INPUT + MAX_TOKENS > LIMIT", its
/// three numbers.
fn limit_sizes(message: &str) -> Option<(u64, u64, u64)> {
    let at = find_ascii_ci(message, "exceed context limit")?;
    let rest = &message[at..];
    let (input, a) = number_after(rest, ":")?;
    let (reserve, b) = number_after(&rest[a..], "+")?;
    let (limit, _) = number_after(&rest[a + b..], ">")?;
    Some((input, reserve, limit))
}

/// vLLM's "'max_tokens' or 'max_completion_tokens' is too large: 8192. This
/// model's maximum context length is 8192 tokens …" when the completion alone
/// takes the whole window: no shorter prompt makes that request fit.
/// So is Anthropic's "exceed context limit: 12 + 200000 > 200000".
fn completion_fills_window(message: &str) -> bool {
    let completion = number_after(message, "is too large:").map(|(n, _)| n);
    let maximum = number_after(message, "maximum context length is").map(|(n, _)| n);
    matches!((completion, maximum), (Some(c), Some(m)) if c >= m)
        || matches!(limit_sizes(message), Some((_, reserve, limit)) if reserve >= limit)
}

/// The number right after `marker` when the text goes on with `suffix`
/// (ASCII case-insensitive): `"request has"`, `" input tokens"`.
fn number_followed_by(text: &str, marker: &str, suffix: &str) -> Option<u64> {
    let (n, end) = number_after(text, marker)?;
    let rest = text.get(end..)?;
    (rest.len() >= suffix.len() && rest.as_bytes()[..suffix.len()].eq_ignore_ascii_case(suffix.as_bytes()))
        .then_some(n)
}

/// The first whole number after `marker` (ASCII case-insensitive; `""`:
/// from the start), digits optionally grouped by commas, and the byte
/// offset just past it.
fn number_after(text: &str, marker: &str) -> Option<(u64, usize)> {
    let from = find_ascii_ci(text, marker)? + marker.len();
    let bytes = text.as_bytes();
    let start = from + bytes[from..].iter().position(u8::is_ascii_digit)?;
    let mut value: u64 = 0;
    let mut end = start;
    while end < bytes.len() {
        match bytes[end] {
            b @ b'0'..=b'9' => value = value.checked_mul(10)?.checked_add(u64::from(b - b'0'))?,
            b',' if bytes.get(end + 1).is_some_and(u8::is_ascii_digit) => {}
            _ => break,
        }
        end += 1;
    }
    Some((value, end))
}

/// Byte offset of `needle` in `haystack`, ASCII case-insensitive.
fn find_ascii_ci(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    if n.is_empty() {
        return Some(0);
    }
    h.windows(n.len()).position(|w| w.eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(
        status: Option<u16>,
        kind: Option<&'a str>,
        code: Option<&'a str>,
        message: &'a str,
    ) -> ErrorFacts<'a> {
        ErrorFacts {
            status,
            kind,
            code,
            message: Some(message),
        }
    }

    #[test]
    fn r8_1_anthropic_400_states_both_sizes() {
        let f = facts(
            Some(400),
            Some("invalid_request_error"),
            None,
            "prompt is too long: 236175 tokens > 200000 maximum",
        );
        assert_eq!(
            classify(&f),
            Some(PromptTooLong {
                tokens: Some(236_175),
                maximum: Some(200_000)
            })
        );
    }

    #[test]
    fn r8_1_claude_code_413_and_the_stop_reason() {
        let cc = facts(Some(413), Some("prompt_too_long"), None, "Prompt is too long");
        assert_eq!(classify(&cc), Some(PromptTooLong::default()));
        let stop = ErrorFacts {
            kind: Some("model_context_window_exceeded"),
            ..ErrorFacts::default()
        };
        assert_eq!(classify(&stop), Some(PromptTooLong::default()));
    }

    #[test]
    fn r8_1_openai_context_length_exceeded() {
        let f = facts(
            Some(400),
            Some("invalid_request_error"),
            Some("context_length_exceeded"),
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130,532 tokens. Please reduce the length of the messages.",
        );
        assert_eq!(
            classify(&f),
            Some(PromptTooLong {
                tokens: Some(130_532),
                maximum: Some(128_000)
            })
        );
        let old = facts(
            Some(400),
            Some("invalid_request_error"),
            Some("context_length_exceeded"),
            "This model's maximum context length is 4097 tokens. However, you requested 4200 tokens (3000 in the messages, 1200 in the completion).",
        );
        assert_eq!(classify(&old).unwrap().tokens, Some(3_000));
    }

    #[test]
    fn r8_1_local_servers_vllm_and_llama_cpp() {
        let sized = |tokens, maximum| {
            Some(PromptTooLong {
                tokens: Some(tokens),
                maximum: Some(maximum),
            })
        };
        // vLLM's 400s: type `BadRequestError`, `code` the number 400.
        let vllm = |message| facts(Some(400), Some("BadRequestError"), None, message);
        let wordings = [
            ("This model's maximum context length is 8192 tokens. However, your request has 9000 input tokens. Please reduce the length of the input messages.", 9_000),
            ("This model's maximum context length is 8192 tokens. However, you requested 1024 output tokens and your prompt contains 7900 input tokens, for a total of 8924 tokens.", 7_900),
            ("This model's maximum context length is 8192 tokens. However, you requested 1024 output tokens and your prompt contains at least 8193 input tokens, for a total of at least 9217 tokens.", 8_193),
            ("This model's maximum context length is 8192 tokens. However, you requested 9024 tokens (8000 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.", 8_000),
            ("'max_tokens' or 'max_completion_tokens' is too large: 1024. This model's maximum context length is 8192 tokens and your request has 7500 input tokens (1024 > 8192 - 7500).", 7_500),
        ];
        for (message, tokens) in wordings {
            assert_eq!(classify(&vllm(message)), sized(tokens, 8_192), "{message}");
        }
        // Its character pre-check: a prompt-too-long whose number is not tokens.
        let chars = vllm("This model's maximum context length is 8192 tokens. However, your prompt contains 40000 characters (more than 32768 characters, which is the upper bound for 8192 input tokens).");
        assert_eq!(classify(&chars).map(|p| p.tokens), Some(None));
        // max_tokens alone fills the window: no shorter prompt fits.
        let whole = vllm("'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context length is 8192 tokens and your request has 12 input tokens (8192 > 8192 - 12).");
        assert_eq!(classify(&whole), None);
        // llama.cpp's server.
        let llama = facts(
            Some(400),
            Some("exceed_context_size_error"),
            None,
            "request (9000 tokens) exceeds the available context size (8192 tokens)",
        );
        assert_eq!(classify(&llama), sized(9_000, 8_192));
        let old = facts(
            Some(400),
            None,
            None,
            "the request exceeds the available context size, try increasing it",
        );
        assert_eq!(classify(&old), Some(PromptTooLong::default()));
    }

    #[test]
    fn r8_1_anthropic_input_plus_max_tokens_states_the_input() {
        // The body the API answers (anthropics/claude-code#408,
        // docker/docker-agent#569): the prompt, `max_tokens`, the limit.
        let f = facts(
            Some(400),
            Some("invalid_request_error"),
            None,
            "input length and `max_tokens` exceed context limit: 188000 + 32000 > 200000, decrease input length or `max_tokens` and try again",
        );
        assert_eq!(
            classify(&f),
            Some(PromptTooLong {
                tokens: Some(188_000),
                maximum: Some(200_000)
            })
        );
        // `max_tokens` alone fills the window: no shorter prompt fits.
        let whole = facts(
            Some(400),
            Some("invalid_request_error"),
            None,
            "input length and `max_tokens` exceed context limit: 12 + 200000 > 200000, decrease input length or `max_tokens` and try again",
        );
        assert_eq!(classify(&whole), None);
        // Under another status or type the words are not one.
        let limited = facts(Some(429), Some("rate_limit_error"), None, f.message.unwrap());
        assert_eq!(classify(&limited), None);
    }

    #[test]
    fn r8_1_openai_configured_limit_ollama_and_langchain() {
        let openai = facts(
            Some(400),
            Some("invalid_request_error"),
            None,
            "Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 289650 tokens. Please reduce the length of the messages.",
        );
        assert_eq!(
            classify(&openai),
            Some(PromptTooLong {
                tokens: Some(289_650),
                maximum: Some(272_000)
            })
        );
        // Ollama: its llama-server runner (no size) and its MLX runner.
        let ollama = facts(
            Some(400),
            None,
            None,
            "the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length",
        );
        assert_eq!(classify(&ollama), Some(PromptTooLong::default()));
        let mlx = facts(
            Some(400),
            None,
            None,
            "input length (9000 tokens) exceeds the model's maximum context length (8192 tokens)",
        );
        assert_eq!(
            classify(&mlx),
            Some(PromptTooLong {
                tokens: Some(9_000),
                maximum: Some(8_192)
            })
        );
        // LangChain's ContextOverflowError, by its class name, with the
        // message it copied from the error it wraps.
        let wrapped = facts(
            None,
            Some("ContextOverflowError"),
            None,
            "Input exceeded the model's context window.",
        );
        assert_eq!(classify(&wrapped), Some(PromptTooLong::default()));
    }

    #[test]
    fn everything_else_is_not_a_prompt_too_long() {
        let others = [
            facts(
                Some(400),
                Some("invalid_request_error"),
                None,
                "messages: roles must alternate",
            ),
            facts(
                Some(413),
                Some("request_too_large"),
                None,
                "Request exceeds the maximum allowed number of bytes.",
            ),
            facts(Some(413), Some("request_too_large"), None, "prompt is too long"),
            facts(
                Some(429),
                Some("rate_limit_error"),
                None,
                "Number of request tokens has exceeded your rate limit",
            ),
            facts(Some(529), Some("overloaded_error"), None, "Overloaded"),
            facts(
                Some(401),
                Some("authentication_error"),
                None,
                "prompt is too long",
            ),
            facts(
                Some(400),
                Some("invalid_request_error"),
                Some("invalid_value"),
                "max_tokens: too large",
            ),
            facts(None, None, None, "ECONNRESET"),
            facts(None, Some("end_turn"), None, ""),
            facts(None, Some("max_tokens"), None, ""),
            ErrorFacts::default(),
        ];
        for f in others {
            assert_eq!(classify(&f), None, "{f:?}");
        }
    }

    #[test]
    fn numbers_never_overflow_or_panic() {
        let f = facts(
            Some(400),
            None,
            None,
            "prompt is too long: 99999999999999999999999 tokens > 1 maximum",
        );
        assert_eq!(classify(&f).unwrap().tokens, None);
        for text in [
            "prompt is too long: ",
            "prompt is too long: 12,",
            "prompt is too long: 5 tokens >",
            "é prompt is too long ü 7",
        ] {
            let _ = classify(&facts(Some(400), None, None, text));
        }
        assert_eq!(
            classify(&facts(
                None,
                None,
                None,
                "PROMPT IS TOO LONG: 5 tokens > 4 maximum"
            ))
            .unwrap()
            .maximum,
            Some(4)
        );
    }
}
