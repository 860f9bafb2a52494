//! The data a replay chooses its settings from: client version ranges →
//! presets, and models → windows and output reserves, each row with the
//! evidence it rests on (files of the two calibration sets,
//! `../shared/fixtures/sessions/` and `sessions-2/`, named by repository
//! and file id, with their automatic boundaries' `preTokens`). A version
//! between two ranges, or outside them all, or a model in no row, is
//! unmeasured: [`super::choice`] says so in `chosen.reasons`.

use crate::engine::Preset;

/// A client version, `(major, minor, patch)`.
pub type Version = (u32, u32, u32);

/// A range of client versions measured on real boundaries.
#[derive(Debug, Clone, Copy)]
pub struct VersionRange {
    /// The first version measured.
    pub first: Version,
    /// The last version measured.
    pub last: Version,
    /// The preset whose compact line they fire at.
    pub preset: Preset,
    /// Whether the client's count adds what was appended since the last
    /// response (tool results, prompts) to that response's usage, as R1.6
    /// does; when not, it is the last response's usage alone (its final
    /// output included), so a large tool result is first counted at the
    /// next response.
    pub counts_appended: bool,
    /// The line in words, and the files and boundaries it rests on.
    pub evidence: &'static str,
}

/// Measured ranges, oldest first, never overlapping.
pub const VERSIONS: &[VersionRange] = &[
    VersionRange {
        first: (2, 0, 70),
        last: (2, 0, 76),
        preset: Preset::Client2076,
        counts_appended: false,
        evidence: "fire near 155,000 (a 32,000 reserve), counting the last response's usage alone: \
            24 boundaries in 2 repositories, isaacmorgado/claude-sovereign (16 main files: 19 boundaries at \
            155,098 – 160,949, 12 of them exactly the last response's usage; 4 subagent files: \
            156,796 – 173,496) and \
            entireio/cli 198393f2 (155,250: usage 154,995 and the reply's final output, not the 530-token \
            tool result after it)",
    },
    VersionRange {
        first: (2, 1, 2),
        last: (2, 1, 20),
        preset: Preset::Client2076,
        counts_appended: true,
        evidence: "fire near 155,000 (a 32,000 reserve), counting what followed the last response: \
            entireio/cli 880d23f9 (2.1.2: 155,189), b00b80af (2.1.5: 155,829 = usage 153,319 + a \
            9,663-character tool result; 155,203), 0276a600, 375d5d79, b42aaf1f, eb4bcc15 (2.1.7: \
            155,258 – 156,912), 839b35f7 (2.1.14: 155,068), 08940314, a318ad73, fdd24234 (2.1.17: \
            155,031 – 157,692), b82405ba (2.1.20: 155,207); isaacmorgado/claude-sovereign agent-a2b0182 \
            (2.1.6, a subagent: 173,850)",
    },
    VersionRange {
        first: (2, 1, 25),
        last: (2, 1, 74),
        preset: Preset::Client21,
        counts_appended: true,
        evidence: "fire near 167,000 (a 20,000 reserve): 10 repositories, entireio/cli (2.1.29 – 2.1.42: \
            167,045 – 174,247), K3RN-LABS/k3rn.labs (2.1.29 – 2.1.50: 167,140 – 179,748), obsessiondb/chkit \
            (2.1.38 – 2.1.50: 167,143 – 170,150), FSM1/cipher-box (2.1.39, 2.1.49: 167,332 – 167,602), \
            Eduardodmb/ClaudeWork 21d5136b (2.1.41: 167,828), Viniciuscarvalho/FitToday (2.1.47 – 2.1.72: \
            167,317 – 173,411), ElixirTrials/medgemma-hackathon (2.1.47: 168,672), 13562964800/claude-skills \
            (2.1.62 – 2.1.63: 167,091 – 168,713), earnabitmore365/merit-ledger (2.1.50 – 2.1.71: \
            167,032 – 175,023); 2.1.25 – 2.1.28 and 2.1.73 – 2.1.74 from the wider corpus (114 boundaries, \
            sessions/README.md: 2.1.25 – 2.1.74 at 167,000 – 174,000)",
    },
    VersionRange {
        first: (2, 1, 122),
        last: (2, 1, 146),
        preset: Preset::Client21,
        counts_appended: true,
        evidence: "fire near 167,000 (a 20,000 reserve): one repository, Eduardodmb/ClaudeWork 88ea4c87 \
            (2.1.122: 167,068), 7ef88c1a (2.1.126: 168,552), 2558ae24 (2.1.132: 168,212), 6277bf85 \
            (2.1.143: 167,106), 56aadd32 (2.1.146: 167,158); the wider corpus (sessions-2/README.md) \
            has 200k-window sessions of 2.1.25 – 2.1.148 at the same line",
    },
];

/// A model the calibration sets name, and what the client's window for
/// it is.
#[derive(Debug, Clone, Copy)]
pub struct ModelRow {
    /// The id prefix (`claude-opus-4-5` matches `claude-opus-4-5-20251101`).
    pub prefix: &'static str,
    /// The window the client uses unless the session chose the long one.
    pub window: u64,
    /// The model's maximum output tokens (Anthropic's model table); the
    /// reserve is the smaller of it and the preset's cap.
    pub max_output: u64,
    /// The long window the model offers (the client's `[1m]` variant), if
    /// any: taken when a request of the session exceeds `window`.
    pub long_window: Option<u64>,
    /// Where the row comes from.
    pub evidence: &'static str,
}

/// A 1M-token window.
const M1: Option<u64> = Some(1_000_000);

/// Models, most specific prefix first. Every Claude model the calibration
/// sets name fires at the 200k line (the 155,000 and 167,000 above), none
/// of their requests exceeds 200,000; the one 1M-window session measured
/// (2.1.170, in the wider corpus, not in either set) fired at `preTokens`
/// 1,000,958 after requests of up to 999,697 tokens.
pub const MODELS: &[ModelRow] = &[
    ModelRow { prefix: "claude-opus-4-6", window: 200_000, max_output: 128_000, long_window: M1,
        evidence: "the main model of 37 files of 10 repositories, 34 automatic boundaries at the 200k line, requests up to 192,723; a 1M variant exists" },
    ModelRow { prefix: "claude-sonnet-4-6", window: 200_000, max_output: 64_000, long_window: M1,
        evidence: "the main model of 17 files of 3 repositories (K3RN-LABS, 13562964800, earnabitmore365), 27 automatic boundaries at the 200k line, requests up to 176,199; a 1M variant exists" },
    ModelRow { prefix: "claude-opus-4-5", window: 200_000, max_output: 64_000, long_window: None,
        evidence: "the main model of 33 files of 2 repositories (entireio, isaacmorgado), 37 automatic boundaries at the 200k line, requests up to 172,919" },
    ModelRow { prefix: "claude-sonnet-4-5", window: 200_000, max_output: 64_000, long_window: M1,
        evidence: "the main model of 13 files of 4 repositories (Eduardodmb, K3RN-LABS, entireio, theogbrand), 10 automatic boundaries at the 200k line, requests up to 168,330; a 1M beta exists" },
    ModelRow { prefix: "claude-haiku-4-5", window: 200_000, max_output: 64_000, long_window: None,
        evidence: "named by 582 assistant records of the sets, never a file's main model" },
    ModelRow { prefix: "claude-opus-4-1", window: 200_000, max_output: 32_000, long_window: None,
        evidence: "Anthropic's model table; not in the sets" },
    ModelRow { prefix: "claude-opus-4", window: 200_000, max_output: 32_000, long_window: None,
        evidence: "Anthropic's model table; not in the sets" },
    ModelRow { prefix: "claude-sonnet-4", window: 200_000, max_output: 64_000, long_window: M1,
        evidence: "Anthropic's model table (1M beta); not in the sets" },
    ModelRow { prefix: "claude-3-7-sonnet", window: 200_000, max_output: 64_000, long_window: None,
        evidence: "Anthropic's model table; not in the sets" },
    ModelRow { prefix: "claude-3-5-haiku", window: 200_000, max_output: 8_192, long_window: None,
        evidence: "Anthropic's model table; not in the sets" },
    ModelRow { prefix: "claude-3-5-sonnet", window: 200_000, max_output: 8_192, long_window: None,
        evidence: "Anthropic's model table; not in the sets" },
];

/// Models the sets name that are not Claude models (Claude Code pointed at
/// another provider): their window is not the client's to know, so a
/// replay says so and assumes the default window.
pub const NON_CLAUDE: &[(&str, &str)] = &[
    ("glm-", "13562964800/claude-skills runs glm-4.7 and glm-4.5-air through Claude Code: the main model of 2 files, no automatic boundary to calibrate on"),
];

/// The preset's range for `v`: the measured row that holds it, or the
/// rows either side of it (none beyond the ends).
pub fn range_of(
    v: Version,
) -> Result<&'static VersionRange, (Option<&'static VersionRange>, Option<&'static VersionRange>)> {
    if let Some(row) = VERSIONS.iter().find(|r| r.first <= v && v <= r.last) {
        return Ok(row);
    }
    let older = VERSIONS.iter().rev().find(|r| r.last < v);
    let newer = VERSIONS.iter().find(|r| r.first > v);
    Err((older, newer))
}

/// `(2, 1, 17)` → `"2.1.17"`.
pub fn text((a, b, c): Version) -> String {
    format!("{a}.{b}.{c}")
}
