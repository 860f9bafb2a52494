//! The summary parser (SPEC R7.4): the model's reply becomes the text that
//! replaces the summarised prefix.
//!
//! Seed 002 shows the client's `IzS`:
//! `text.replace(/<analysis>[\s\S]*?<\/analysis>/, "")`, then "when
//! `<summary>` matches, rewrite it as `Summary: …`". Our rules, step by step:
//!
//! 1. Remove the **first** `<analysis>…</analysis>` only: the first
//!    `<analysis>` up to the first `</analysis>` after it, across newlines.
//!    The seed's regex has no `g` flag, so a second analysis block stays; an
//!    `<analysis>` that is never closed is not a match and stays too. Tags
//!    are case-sensitive, as in the regex.
//! 2. If the rest holds a `<summary>` followed somewhere by a `</summary>`,
//!    the result is `Summary:\n` and the trimmed text between the first
//!    `<summary>` and the **last** `</summary>`. Text before and after the
//!    pair is dropped: the seed rewrites the match into the Summary and names
//!    nothing else as kept, and a preamble ("Here is the summary:") or a
//!    closing remark is not part of the hand-over. The seed does not say how
//!    far the match runs; we take the last closing tag because section 6
//!    quotes user messages verbatim, and a user who pasted `</summary>`
//!    (users of a compaction tool do) would otherwise cut off sections 7–9.
//!    A pair with nothing but whitespace inside is an empty summary.
//! 3. Otherwise the rest, trimmed, is accepted whole if it is not empty
//!    (lenient: the client accepts non-empty text without complete tags).
//! 4. Nothing but whitespace left is [`Error::EmptySummary`]; the caller
//!    keeps the old view (R7.10).
//!
//! The search is hand-written over ASCII tags, so every index it slices at
//! is the start of a tag or the end of one: always a character boundary.

use crate::error::Error;

const ANALYSIS_OPEN: &str = "<analysis>";
const ANALYSIS_CLOSE: &str = "</analysis>";
const SUMMARY_OPEN: &str = "<summary>";
const SUMMARY_CLOSE: &str = "</summary>";

/// The summary text of a model's reply, `Summary:\n…` when the reply has a
/// `<summary>` block (see the module docs for every rule).
///
/// ```
/// use compaction_core::summary::parse_summary;
///
/// let reply = "<analysis>checked</analysis>\n<summary>\n1. Primary Request and Intent:\n   x\n</summary>";
/// assert_eq!(parse_summary(reply)?, "Summary:\n1. Primary Request and Intent:\n   x");
/// assert!(parse_summary("<analysis>only this</analysis>  ").is_err());
/// # Ok::<(), compaction_core::Error>(())
/// ```
pub fn parse_summary(reply: &str) -> Result<String, Error> {
    let rest = without_first_analysis(reply);
    if let Some(inner) = summary_inner(&rest) {
        let inner = inner.trim();
        if inner.is_empty() {
            return Err(Error::EmptySummary);
        }
        return Ok(format!("Summary:\n{inner}"));
    }
    let whole = rest.trim();
    if whole.is_empty() {
        return Err(Error::EmptySummary);
    }
    Ok(whole.to_owned())
}

/// The reply without its first complete `<analysis>…</analysis>` block.
fn without_first_analysis(reply: &str) -> String {
    let Some(open) = reply.find(ANALYSIS_OPEN) else {
        return reply.to_owned();
    };
    let body = open + ANALYSIS_OPEN.len();
    let Some(close) = reply[body..].find(ANALYSIS_CLOSE) else {
        return reply.to_owned();
    };
    let end = body + close + ANALYSIS_CLOSE.len();
    let mut out = String::with_capacity(reply.len() - (end - open));
    out.push_str(&reply[..open]);
    out.push_str(&reply[end..]);
    out
}

/// The text between the first `<summary>` and the last `</summary>` after
/// it, if there is such a pair.
fn summary_inner(text: &str) -> Option<&str> {
    let open = text.find(SUMMARY_OPEN)?;
    let body = open + SUMMARY_OPEN.len();
    let close = crate::text::rfind(&text[body..], SUMMARY_CLOSE)?;
    Some(&text[body..body + close])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analysis_then_summary_becomes_the_summary_only() {
        let reply = "<analysis>\nchronology\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   do x\n</summary>\n";
        assert_eq!(
            parse_summary(reply).unwrap(),
            "Summary:\n1. Primary Request and Intent:\n   do x"
        );
    }

    #[test]
    fn only_the_first_analysis_block_is_removed() {
        let reply = "<analysis>one</analysis>middle<analysis>two</analysis>";
        assert_eq!(parse_summary(reply).unwrap(), "middle<analysis>two</analysis>");
    }

    #[test]
    fn the_analysis_match_is_non_greedy() {
        let reply = "<analysis>a</analysis> keep </analysis>";
        assert_eq!(parse_summary(reply).unwrap(), "keep </analysis>");
    }

    #[test]
    fn an_unclosed_analysis_is_kept_as_text() {
        assert_eq!(
            parse_summary("<analysis>never closed").unwrap(),
            "<analysis>never closed"
        );
        // A closing tag before the opening one is no pair either.
        assert_eq!(
            parse_summary("</analysis> x <analysis>").unwrap(),
            "</analysis> x <analysis>"
        );
    }

    #[test]
    fn tags_are_case_sensitive() {
        assert_eq!(
            parse_summary("<ANALYSIS>a</ANALYSIS>").unwrap(),
            "<ANALYSIS>a</ANALYSIS>"
        );
    }

    #[test]
    fn text_around_the_summary_pair_is_dropped() {
        let reply = "Here it is:\n<summary>  body  </summary>\nHope this helps.";
        assert_eq!(parse_summary(reply).unwrap(), "Summary:\nbody");
    }

    #[test]
    fn the_summary_runs_to_the_last_closing_tag() {
        let reply = "<summary>6. All User Messages:\n   - paste </summary> here\n9. Optional Next Step: y\n</summary>";
        assert_eq!(
            parse_summary(reply).unwrap(),
            "Summary:\n6. All User Messages:\n   - paste </summary> here\n9. Optional Next Step: y"
        );
    }

    #[test]
    fn a_summary_inside_the_first_analysis_is_removed_with_it() {
        let reply = "<analysis><summary>draft</summary></analysis>final words";
        assert_eq!(parse_summary(reply).unwrap(), "final words");
    }

    #[test]
    fn incomplete_summary_tags_fall_back_to_the_whole_text() {
        assert_eq!(parse_summary("<summary>\nno end").unwrap(), "<summary>\nno end");
        assert_eq!(
            parse_summary("</summary> x <summary>").unwrap(),
            "</summary> x <summary>"
        );
    }

    #[test]
    fn text_without_tags_is_accepted_whole_and_trimmed() {
        assert_eq!(
            parse_summary("\n  The user wants x.\n\n").unwrap(),
            "The user wants x."
        );
    }

    #[test]
    fn empty_replies_are_errors() {
        for reply in [
            "",
            "  \n\t",
            "<analysis>everything</analysis>",
            "<analysis>a</analysis>\n\n",
            "<summary> \n </summary>",
            "before <summary></summary> after",
        ] {
            assert_eq!(parse_summary(reply), Err(Error::EmptySummary), "{reply:?}");
        }
    }

    #[test]
    fn multibyte_text_next_to_tags_is_kept_whole() {
        let reply = "é<analysis>日本</analysis>😀<summary>語😀</summary>ü";
        assert_eq!(parse_summary(reply).unwrap(), "Summary:\n語😀");
        assert_eq!(parse_summary("😀<analysis>x</analysis>é").unwrap(), "😀é");
    }
}
