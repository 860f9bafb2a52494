//! `compaction-noscript PAGE.html`: fills the page's `<noscript>` marker
//! with content generated from the engine, in place. Trunk runs it as a
//! post-build hook on the staged `index.html` (see `Trunk.toml`). It also
//! moves Trunk's inline loader script into `start.js` beside the page, so the
//! page's Content-Security-Policy can forbid inline scripts.

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
    let page = match compaction_noscript::externalise_loader(&page) {
        Some((page, script)) => {
            let loader = std::path::Path::new(&path).with_file_name(compaction_noscript::LOADER);
            if let Err(err) = std::fs::write(&loader, script + "\n") {
                eprintln!("error: cannot write {}: {err}", loader.display());
                return ExitCode::FAILURE;
            }
            page
        }
        None => page,
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
