//! Every file the CLI reads is opened here: only a regular file (never a
//! device like `/dev/zero`, a fifo, a socket or a directory, whose reads
//! may never end or never start), checked before it is opened, checked
//! again once open, and read no further than its size (or a cap).

use std::fs::{File, Metadata};
use std::io::{ErrorKind, Read};
use std::path::Path;

/// An I/O error in lowercase words, without Rust's "(os error N)".
pub fn reason(err: &std::io::Error) -> String {
    let text = match err.kind() {
        ErrorKind::NotFound => "no such file".to_owned(),
        ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => err.to_string(),
    };
    let text = text.split(" (os error").next().unwrap_or_default().to_owned();
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

/// What a file that is not a regular one is, in words.
pub fn kind(meta: &Metadata) -> &'static str {
    let kind = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_fifo() {
            return "a fifo";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        "not a file"
    }
}

/// Why `path` cannot be read, or `None` when `meta` is a regular file's.
pub fn not_regular(meta: &Metadata) -> Option<String> {
    (!meta.is_file()).then(|| format!("not a regular file ({})", kind(meta)))
}

/// The regular file at `path`, open for reading, and its size. Anything
/// else is refused from its metadata alone, before any open (opening a
/// fifo blocks); the file is checked again once open, in case the path
/// changed in between. The error is the reason, without the path.
pub fn open_regular(path: &Path) -> Result<(File, u64), String> {
    let meta = std::fs::metadata(path).map_err(|e| reason(&e))?;
    if let Some(why) = not_regular(&meta) {
        return Err(why);
    }
    let file = File::open(path).map_err(|e| reason(&e))?;
    let open = file.metadata().map_err(|e| reason(&e))?;
    if let Some(why) = not_regular(&open) {
        return Err(why);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (open.dev(), open.ino()) != (meta.dev(), meta.ino()) {
            return Err("the file changed while it was opened".to_owned());
        }
    }
    Ok((file, open.len()))
}

/// At most `cap` bytes from the start of `file`, read through
/// [`Read::take`] (never a byte more, whatever the file claims).
pub fn read_capped(file: File, cap: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::with_capacity(usize::try_from(cap.min(1 << 20)).unwrap_or(0));
    file.take(cap).read_to_end(&mut bytes).map_err(|e| reason(&e))?;
    Ok(bytes)
}

/// The whole of the regular file a flag names (`--messages FILE`,
/// `parse-summary FILE`), up to its size when opened; errors name it.
pub fn input(path: &Path) -> Result<Vec<u8>, String> {
    open_regular(path)
        .and_then(|(file, size)| read_capped(file, size))
        .map_err(|why| format!("cannot read `{}`: {why}", path.display()))
}

/// [`input`] as UTF-8 text.
pub fn input_text(path: &Path) -> Result<String, String> {
    String::from_utf8(input(path)?)
        .map_err(|e| format!("cannot read `{}`: not UTF-8 text ({e})", path.display()))
}
