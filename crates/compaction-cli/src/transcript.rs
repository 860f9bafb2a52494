//! `compaction inspect` and `compaction resume`: a Claude Code session file
//! streamed in 64 KiB chunks into the engine's importer.
//!
//! Progress: for a file over 4 MiB, the percentage read is written to
//! stderr when stderr is a terminal (`\r`-updated), and always with
//! `--progress` (one line per 10% when stderr is not a terminal). Nothing
//! but the JSON result is ever written to stdout.

use std::io::{ErrorKind, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use compaction_core::transcript::{Importer, Transcript};

/// Chunk size the file is read and fed in.
const CHUNK: usize = 64 * 1024;

/// Files larger than this show progress on a terminal.
const PROGRESS_FROM_BYTES: u64 = 4 * 1024 * 1024;

/// Arguments of `inspect` and `resume`.
#[derive(Debug, clap::Args)]
pub struct SessionArgs {
    /// The session file (`~/.claude/projects/<project>/<session>.jsonl`).
    #[arg(value_name = "FILE.jsonl")]
    file: PathBuf,
    /// Show the percentage read on stderr even when stderr is not a
    /// terminal or the file is small.
    #[arg(long)]
    progress: bool,
}

/// `compaction inspect FILE`: counts, boundaries, versions and problems.
pub fn inspect(args: &SessionArgs) -> Result<String, String> {
    let transcript = read(args)?;
    serde_json::to_string_pretty(&transcript.inspection()).map_err(|err| err.to_string())
}

/// `compaction resume FILE`: the active view a resumed session would see.
pub fn resume(args: &SessionArgs) -> Result<String, String> {
    let transcript = read(args)?;
    serde_json::to_string_pretty(&transcript.resume()).map_err(|err| err.to_string())
}

/// Reads the file in chunks into an [`Importer`], up to the size it had
/// when opened (a file still being written is read as it was); anything
/// but a regular file is refused (`crate::read`). Errors name the file.
fn read(args: &SessionArgs) -> Result<Transcript, String> {
    let path = &args.file;
    let (file, size) =
        crate::read::open_regular(path).map_err(|why| format!("cannot open `{}`: {why}", path.display()))?;
    let mut file = file.take(size);
    let mut progress = Progress::new(path, size, args.progress);
    let mut importer = Importer::new();
    let mut buffer = vec![0; CHUNK];
    loop {
        let n = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == ErrorKind::Interrupted => continue,
            Err(err) => {
                return Err(format!(
                    "cannot read `{}`: {}",
                    path.display(),
                    crate::read::reason(&err)
                ))
            }
        };
        importer.feed(buffer.get(..n).unwrap_or_default());
        progress.show(importer.bytes_fed());
    }
    progress.done();
    Ok(importer.finish())
}

/// The percentage read, on stderr.
struct Progress {
    name: String,
    size: u64,
    on: bool,
    terminal: bool,
    shown: Option<u64>,
}

impl Progress {
    fn new(path: &Path, size: u64, forced: bool) -> Self {
        let terminal = std::io::stderr().is_terminal();
        Progress {
            name: path.display().to_string(),
            size,
            on: forced || (terminal && size > PROGRESS_FROM_BYTES),
            terminal,
            shown: None,
        }
    }

    fn show(&mut self, read: u64) {
        if !self.on {
            return;
        }
        let pct = read
            .saturating_mul(100)
            .checked_div(self.size)
            .unwrap_or(100)
            .min(100);
        let step = if self.terminal { pct } else { pct / 10 * 10 };
        if self.shown == Some(step) {
            return;
        }
        self.shown = Some(step);
        let mut err = std::io::stderr().lock();
        // Progress is best effort: a closed stderr must not fail the command.
        let _ = if self.terminal {
            write!(err, "\rreading {}: {step}%", self.name)
        } else {
            writeln!(err, "reading {}: {step}%", self.name)
        };
        let _ = err.flush();
    }

    fn done(&mut self) {
        if !self.on {
            return;
        }
        if self.shown != Some(100) {
            self.show(self.size);
        }
        if self.terminal {
            let _ = writeln!(std::io::stderr());
        }
    }
}

/// A whole session file, imported, for `compaction replay` and the
/// `--session` of `compaction plan` / `compact`.
pub(crate) fn transcript_of(path: &std::path::Path) -> Result<Transcript, String> {
    read(&SessionArgs {
        file: path.to_path_buf(),
        progress: false,
    })
}
