//! The files `compact` re-attaches after a compaction (R7.7), read for the
//! engine's `Files` request. The paths come from the history's tool calls,
//! which a model wrote: only regular files under a root are read (the
//! session's working directory for `--session`, the current directory
//! otherwise, or `--root DIR`), through no link out of it, each no further
//! than the attachment budget needs; `--no-read` reads none. Every path not
//! read by this rule is a [`Refusal`], listed in the output.

use std::path::{Component, Path, PathBuf};

use compaction_core::compact::{AttachmentSettings, FileAnswer};
use compaction_core::tokens::Estimator;
use serde::Serialize;

/// A path the rule refused to read, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// The path as the tool call named it.
    pub path: String,
    /// Why it was not read.
    pub reason: String,
}

/// Where reading is allowed, and how much.
#[derive(Debug)]
pub struct Files {
    /// The root as given, absolute and without `.`/`..` (for the lexical
    /// check), and canonical (for the real one); or why there is none.
    root: Result<(PathBuf, PathBuf), String>,
    /// The most bytes read from one file.
    cap: u64,
    /// `--no-read`.
    off: bool,
    /// The paths refused so far.
    refused: Vec<Refusal>,
}

/// Why one path was not read: refused by the rule, or the read failed.
enum Unread {
    Refused(String),
    Failed(String),
}

impl Files {
    /// Reading under `root` (not canonicalised yet; an error in it refuses
    /// every path with that reason), each file capped for `attachments`.
    pub fn new(
        root: Result<PathBuf, String>,
        attachments: &AttachmentSettings,
        estimator: &Estimator,
    ) -> Self {
        let root = root.and_then(|given| {
            let absolute = lexical(&std::path::absolute(&given).map_err(|e| {
                format!(
                    "the root `{}` cannot be used: {}",
                    given.display(),
                    crate::read::reason(&e)
                )
            })?);
            let canonical = absolute.canonicalize().map_err(|e| {
                format!(
                    "the root `{}` cannot be used: {}",
                    given.display(),
                    crate::read::reason(&e)
                )
            })?;
            Ok((absolute, canonical))
        });
        Files {
            root,
            cap: byte_cap(attachments, estimator),
            off: false,
            refused: Vec::new(),
        }
    }

    /// `--no-read`: every path refused.
    pub fn off(mut self) -> Self {
        self.off = true;
        self
    }

    /// The paths refused so far, in the order they were asked for.
    pub fn into_refused(self) -> Vec<Refusal> {
        self.refused
    }

    /// The engine's `Files` request answered: each path's content, or why
    /// it was not read (a refusal also listed).
    pub fn answer(&mut self, paths: &[String]) -> Vec<FileAnswer> {
        paths
            .iter()
            .map(|path| {
                let content = match self.read(path) {
                    Ok(text) => Ok(text),
                    Err(Unread::Failed(why)) => Err(why),
                    Err(Unread::Refused(why)) => {
                        self.refused.push(Refusal {
                            path: path.clone(),
                            reason: why.clone(),
                        });
                        Err(format!("refused: {why}"))
                    }
                };
                FileAnswer {
                    path: path.clone(),
                    content,
                }
            })
            .collect()
    }

    fn read(&self, path: &str) -> Result<String, Unread> {
        if self.off {
            return Err(Unread::Refused("--no-read: no file is read".to_owned()));
        }
        let (given, canonical) = self.root.as_ref().map_err(|why| Unread::Refused(why.clone()))?;
        let outside = || format!("outside the root `{}`", canonical.display());
        // By the path's words first: `..` and absolute paths out of the
        // root are refused without touching the file system.
        let joined = given.join(path);
        let words = lexical(&joined);
        if !words.starts_with(given) && !words.starts_with(canonical) {
            return Err(Unread::Refused(outside()));
        }
        // Then where it really leads, every link resolved.
        let real = joined
            .canonicalize()
            .map_err(|e| Unread::Failed(crate::read::reason(&e)))?;
        if !real.starts_with(canonical) {
            return Err(Unread::Refused(format!(
                "{} (through a link, to `{}`)",
                outside(),
                real.display()
            )));
        }
        let meta = std::fs::metadata(&real).map_err(|e| Unread::Failed(crate::read::reason(&e)))?;
        if let Some(why) = crate::read::not_regular(&meta) {
            return Err(Unread::Refused(why));
        }
        let (file, size) = crate::read::open_regular(&real).map_err(Unread::Failed)?;
        let bytes = crate::read::read_capped(file, size.min(self.cap)).map_err(Unread::Failed)?;
        let cut = (bytes.len() as u64) < size;
        match String::from_utf8(bytes) {
            Ok(text) => Ok(text),
            // Cut inside a character: the characters before it.
            Err(e) if cut && e.utf8_error().error_len().is_none() => {
                let end = e.utf8_error().valid_up_to();
                let mut bytes = e.into_bytes();
                bytes.truncate(end);
                String::from_utf8(bytes).map_err(|e| Unread::Failed(format!("not UTF-8 text ({e})")))
            }
            Err(e) => Err(Unread::Failed(format!("not UTF-8 text ({})", e.utf8_error()))),
        }
    }
}

/// The most bytes of one file the attachment budget can use, and a few
/// more: a file cut here still holds more than `per_file_tokens`, so the
/// engine cuts it and marks the cut. At least one token per
/// `max(chars_per_token, wide_chars_per_token)` characters, and a
/// character is at most 4 bytes of UTF-8.
pub fn byte_cap(attachments: &AttachmentSettings, estimator: &Estimator) -> u64 {
    let chars_per_token = estimator
        .chars_per_token
        .max(estimator.wide_chars_per_token)
        .max(1);
    attachments
        .per_file_tokens
        .saturating_mul(chars_per_token)
        .saturating_mul(4)
        .saturating_add(4)
}

/// `path` without `.` and `..` components, by its words alone (no link
/// resolved); `..` above the top stays at the top.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)] // tests may fail loudly

    use super::*;

    #[test]
    fn the_words_of_a_path_lose_dots_and_stop_at_the_top() {
        assert_eq!(lexical(Path::new("/a/b/../c/./d")), Path::new("/a/c/d"));
        assert_eq!(lexical(Path::new("/a/../../../etc")), Path::new("/etc"));
        assert_eq!(lexical(Path::new("/r/sub/../../x")), Path::new("/x"));
    }

    /// A file longer than the cap is read up to the cap, no further, cut
    /// on a character; the engine still sees more than the per-file budget.
    #[test]
    fn a_long_file_is_read_up_to_the_cap_only() {
        let attachments = AttachmentSettings {
            per_file_tokens: 10,
            ..AttachmentSettings::default()
        };
        let estimator = Estimator::default();
        let cap = byte_cap(&attachments, &estimator);
        assert_eq!(cap, 10 * 4 * 4 + 4);
        let dir = std::env::temp_dir().join(format!("compaction-cli-unit-{}-cap", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // 3-byte characters: the cap (164) falls inside the 55th.
        std::fs::write(dir.join("long.txt"), "é€".repeat(1_000)).unwrap();
        let mut files = Files::new(Ok(dir.clone()), &attachments, &estimator);
        let answers = files.answer(&["long.txt".to_owned()]);
        let text = answers[0].content.as_ref().unwrap();
        assert!(
            text.len() as u64 <= cap && text.len() as u64 > cap - 4,
            "{}",
            text.len()
        );
        assert!(estimator.text(text) > attachments.per_file_tokens);
        assert!(files.into_refused().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
