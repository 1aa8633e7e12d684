//! Command-line conventions: shell completions (`lockcheck completions SHELL`), the man page
//! (`lockcheck man`), the version with the trace formats it reads, and verdict lines
//! coloured only for a terminal and never when `NO_COLOR` is set (no-color.org).

use super::{Cli, CompletionsArgs, Output, EXIT_OK};
use clap::CommandFactory;
use serde_json::json;

/// `--version`: the tool's version and the trace file formats it writes and reads.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (trace file format 1, kernel trace format 1)"
);

pub(super) fn cmd_completions(a: &CompletionsArgs) -> Output {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "lockcheck", &mut script);
    let text = String::from_utf8_lossy(&script).into_owned();
    Output {
        json: json!({"command": "completions", "shell": a.shell.to_string(), "script": text}),
        text,
        code: EXIT_OK,
    }
}

pub(super) fn cmd_man() -> Output {
    let mut page = Vec::new();
    let rendered = clap_mangen::Man::new(Cli::command()).render(&mut page);
    let text = match rendered {
        Ok(()) => String::from_utf8_lossy(&page).into_owned(),
        Err(e) => format!("cannot render the man page: {e}\n"),
    };
    Output {
        json: json!({"command": "man", "roff": text}),
        text,
        code: EXIT_OK,
    }
}

/// Whether text on stdout may be coloured: a terminal, and `NO_COLOR` unset or empty.
pub fn colour_wanted(stdout_is_terminal: bool, no_color: Option<&str>) -> bool {
    stdout_is_terminal && no_color.is_none_or(str::is_empty)
}

/// `text` with its verdict lines coloured: red for a violation, green for none found,
/// yellow for no verdict.
pub fn colour_verdicts(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let colour = if body.starts_with("verdict: VIOLATION") {
            Some("31")
        } else if body.starts_with("verdict: no violation") {
            Some("32")
        } else if body.starts_with("verdict: NO VERDICT") || body.starts_with("no verdict:") {
            Some("33")
        } else {
            None
        };
        match colour {
            Some(c) => {
                out.push_str(&format!("\x1b[1;{c}m{body}\x1b[0m"));
                out.push_str(&line[body.len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_for_a_terminal_without_no_color() {
        assert!(colour_wanted(true, None));
        assert!(colour_wanted(true, Some("")));
        assert!(!colour_wanted(true, Some("1")));
        assert!(!colour_wanted(false, None));
    }

    #[test]
    fn verdict_lines_are_coloured_and_nothing_else() {
        let text = "scenario: x\nverdict: VIOLATION of me-lock: two\nverdict: no violation found\n";
        assert_eq!(
            colour_verdicts(text),
            "scenario: x\n\x1b[1;31mverdict: VIOLATION of me-lock: two\x1b[0m\n\x1b[1;32mverdict: no violation found\x1b[0m\n"
        );
    }

    #[test]
    fn the_version_names_the_formats_this_build_uses() {
        assert!(VERSION.contains(&format!(
            "trace file format {}",
            lockcheck::saved::SAVED_FORMAT
        )));
        assert!(VERSION.contains(&format!(
            "kernel trace format {}",
            lockcheck_sim::FORMAT_VERSION
        )));
    }
}

#[cfg(test)]
mod help_tests {
    use super::super::Cli;
    use clap::CommandFactory;

    #[test]
    fn every_flag_and_argument_has_help_text() {
        let cli = Cli::command();
        let mut missing = Vec::new();
        for cmd in std::iter::once(&cli).chain(cli.get_subcommands()) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{} {id}", cmd.get_name()));
                }
            }
        }
        assert!(missing.is_empty(), "no help text: {missing:?}");
    }
}
