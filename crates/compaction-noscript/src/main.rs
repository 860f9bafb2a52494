//! `compaction-noscript PAGE.html`: fills the page's `<noscript>` marker
//! with content generated from the engine, in place. Trunk runs it as a
//! post-build hook on the staged `index.html` (see `Trunk.toml`).

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: compaction-noscript PAGE.html");
        return ExitCode::FAILURE;
    };
    let page = match std::fs::read_to_string(&path) {
        Ok(page) => page,
        Err(err) => {
            eprintln!("error: cannot read {path}: {err}");
            return ExitCode::FAILURE;
        }
    };
    match compaction_noscript::render_into(&page) {
        Ok(Some(rendered)) => match std::fs::write(&path, rendered) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("error: cannot write {path}: {err}");
                ExitCode::FAILURE
            }
        },
        Ok(None) => {
            eprintln!("error: {path} has no {} marker", compaction_noscript::MARKER);
            ExitCode::FAILURE
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
