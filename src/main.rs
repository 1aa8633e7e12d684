//! `lockcheck`: check, replay, shrink, sweep and explain distributed-lock scenarios.
//! See `lockcheck --help`. The command line lives in `cli`, private to this binary; it runs
//! the scenarios, searches and reports of the `lockcheck` library.

use clap::Parser;
mod cli;

use cli::conventions::{colour_verdicts, colour_wanted};
use cli::{Cli, EXIT_BAD_INPUT};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// The search clones and drops world states at a high rate (a successor copies the state's
/// vectors and the message it handles); mimalloc serves those small allocations about a
/// third faster than the system allocator (`examples/scenarios_bench`, `docs/guide/benchmarks.md`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Usage errors exit with 2, `--help` and `--version` with 0.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_BAD_INPUT } else { 0 });
        }
    };
    if let Err(e) = lockcheck::interrupt::install() {
        eprintln!("warning: Ctrl-C will not report partial results: {e}");
    }
    let result = cli::run(&cli);
    let mut stdout = std::io::stdout().lock();
    match result {
        Ok(out) => {
            let _ = if cli.json {
                writeln!(
                    stdout,
                    "{}",
                    serde_json::to_string_pretty(&out.json).unwrap_or_default()
                )
            } else if colour_wanted(
                stdout.is_terminal(),
                std::env::var("NO_COLOR").ok().as_deref(),
            ) {
                write!(stdout, "{}", colour_verdicts(&out.text))
            } else {
                write!(stdout, "{}", out.text)
            };
            ExitCode::from(out.code)
        }
        Err(e) => {
            eprintln!("error: {e}");
            if cli.json {
                let i = &e.error;
                let j = serde_json::json!({"error": {
                    "kind": e.kind.word(), "message": i.message, "file": i.file,
                    "line": i.line, "column": i.column, "field": i.field,
                }});
                let _ = writeln!(
                    stdout,
                    "{}",
                    serde_json::to_string_pretty(&j).unwrap_or_default()
                );
            }
            ExitCode::from(e.exit_code())
        }
    }
}
