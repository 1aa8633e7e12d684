//! Every `lockcheck` command the README and the guide show is run, page by page in reading
//! order and in one folder (a trace one command saves is there for the next), and must do
//! what the text says beside it: `# VIOLATION of X` (or `# X VIOLATED`) needs that violation
//! and exit code 1, `# no violation found` exit code 0, `(N states)` that many states in the
//! statistics (explored or unique), `(N steps)` a counterexample of that many steps. A command with no stated
//! result must still end with a verdict or its job done (exit code 0 or 1).

mod common;

use common::{repo, run_within, workdir, Out};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// The README, then the guide in its reading order.
const PAGES: [&str; 8] = [
    "README.md",
    "docs/guide/concepts.md",
    "docs/guide/scenarios.md",
    "docs/guide/builtins.md",
    "docs/guide/commands.md",
    "docs/guide/rust.md",
    "docs/guide/search.md",
    "docs/guide/benchmarks.md",
];

/// A command as a page shows it.
struct Shown {
    page: &'static str,
    line: usize,
    command: String,
    comment: String,
}

/// The `lockcheck` commands in the page's `sh` blocks (`cargo run --release --` standing for
/// `lockcheck`); cargo, bash and benchmark commands are not lockcheck's.
fn shown_commands(page: &'static str, text: &str) -> Vec<Shown> {
    let mut shown = Vec::new();
    let mut in_sh = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            in_sh = !in_sh && line.trim() == "```sh";
            continue;
        }
        let line = line.trim();
        if !in_sh || line.starts_with('#') {
            continue;
        }
        let line = line.replace("cargo run --release -- ", "lockcheck ");
        let runs_lockcheck = line.starts_with("lockcheck ")
            || (line.starts_with("for ") && line.contains(" lockcheck "));
        if !runs_lockcheck {
            continue;
        }
        let (command, comment) = match line.find("  #") {
            Some(at) => (&line[..at], line[at + 3..].trim()),
            None => (line.as_str(), ""),
        };
        shown.push(Shown {
            page,
            line: i + 1,
            command: command.trim().to_string(),
            comment: comment.to_string(),
        });
    }
    shown
}

/// The oracle a comment says is violated: `VIOLATION of X` or `X VIOLATED`.
fn violated_oracle(comment: &str) -> Option<String> {
    if let Some(rest) = comment.split("VIOLATION of ").nth(1) {
        return rest.split([':', ' ']).next().map(str::to_string);
    }
    let before = comment.split(" VIOLATED").next()?;
    (before != comment).then(|| before.split_whitespace().last().unwrap_or("").to_string())
}

/// The number before `word)` in a comment, as in `(1,720 states)` or `(24 steps)`.
fn count_before(comment: &str, word: &str) -> Option<u64> {
    let at = comment.find(&format!(" {word})"))?;
    let digits: String = comment[..at]
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .collect();
    digits
        .chars()
        .rev()
        .filter(|c| *c != ',')
        .collect::<String>()
        .parse()
        .ok()
}

/// What the comment beside `shown` says, checked against what the command did.
fn assert_does_what_it_says(shown: &Shown, out: &Out) {
    let at = format!("{}:{}: `{}`", shown.page, shown.line, shown.command);
    let said = &shown.comment;
    if let Some(oracle) = violated_oracle(said) {
        assert_eq!(out.code, 1, "{at} should find a violation:\n{}", out.stdout);
        let line = format!("VIOLATION of {oracle}");
        assert!(
            out.stdout.contains(&line),
            "{at}: no `{line}`:\n{}",
            out.stdout
        );
    } else if said.starts_with("no violation found") {
        assert_eq!(out.code, 0, "{at} should find none:\n{}", out.stdout);
    } else {
        assert!(out.code <= 1, "{at} exited {}:\n{}", out.code, out.stderr);
    }
    if let Some(states) = count_before(said, "states") {
        let statistics = out.stdout.lines().find(|l| l.starts_with("statistics: "));
        let statistics = statistics.unwrap_or_else(|| panic!("{at}: no statistics line"));
        let (explored, unique) = (format!(" {states} states,"), format!(" {states} unique,"));
        assert!(
            statistics.contains(&explored) || statistics.contains(&unique),
            "{at}: not {states} states (explored or unique): {statistics}"
        );
    }
    if let Some(steps) = count_before(said, "steps") {
        let line = format!("counterexample ({steps} steps");
        assert!(
            out.stdout.contains(&line),
            "{at}: no `{line}`:\n{}",
            out.stdout
        );
    }
}

/// Runs one shown command with `bash` (for its redirections and loops) in `dir`, with the
/// `lockcheck` under test first on `PATH`.
fn run_shown(dir: &Path, shown: &Shown) -> Out {
    let binary = Path::new(env!("CARGO_BIN_EXE_lockcheck"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("bash");
    command
        .args(["-c", &shown.command])
        .current_dir(dir)
        .env("PATH", path);
    let what = format!("{}:{}: {}", shown.page, shown.line, shown.command);
    run_within(command, &what, Duration::from_secs(900))
}

#[test]
fn every_command_the_docs_show_does_what_they_say() {
    let dir = workdir("docs-commands");
    std::os::unix::fs::symlink(repo("scenarios"), dir.join("scenarios")).unwrap();
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    let mut ran = 0;
    for page in PAGES {
        let text = std::fs::read_to_string(repo(page))
            .unwrap_or_else(|e| panic!("{page}: {e} (the README's guide lists it)"));
        for shown in shown_commands(page, &text) {
            let mut out = run_shown(&dir, &shown);
            // `reproduce` says INCONCLUSIVE (exit 3) when a loaded machine could not hold a
            // step's timing: no verdict, so it is run again, three times at most, as
            // tests/reproduce_real.rs does.
            for _ in 0..2 {
                if !(shown.command.starts_with("lockcheck reproduce ") && out.code == 3) {
                    break;
                }
                out = run_shown(&dir, &shown);
            }
            assert_does_what_it_says(&shown, &out);
            ran += 1;
        }
    }
    assert!(
        ran >= 40,
        "only {ran} commands found: is the parser still right?"
    );
}

#[test]
fn comments_are_read_as_the_docs_mean_them() {
    let page = "```sh\nlockcheck check a   # VIOLATION of me-lock: two (1,720 states)\n\
                cargo run --release -- check b   # detector-false-positive VIOLATED (9 steps)\n\
                lockcheck check c   # no violation found (every state explored, 255 states)\n\
                bash .ci/run\n# lockcheck not-a-command\n```\nlockcheck outside a block\n";
    let shown = shown_commands("page", page);
    let commands: Vec<&str> = shown.iter().map(|s| s.command.as_str()).collect();
    assert_eq!(
        commands,
        [
            "lockcheck check a",
            "lockcheck check b",
            "lockcheck check c"
        ]
    );
    assert_eq!(
        violated_oracle(&shown[0].comment).as_deref(),
        Some("me-lock")
    );
    assert_eq!(count_before(&shown[0].comment, "states"), Some(1720));
    assert_eq!(
        violated_oracle(&shown[1].comment).as_deref(),
        Some("detector-false-positive")
    );
    assert_eq!(count_before(&shown[1].comment, "steps"), Some(9));
    assert_eq!(violated_oracle(&shown[2].comment), None);
    assert_eq!(count_before(&shown[2].comment, "states"), Some(255));
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a page's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut in_code = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            found.push(anchor(line.trim_start_matches('#').trim()));
        }
    }
    found
}

#[test]
fn every_link_between_the_pages_leads_somewhere() {
    let mut checked = 0;
    for page in PAGES {
        let text = std::fs::read_to_string(repo(page)).unwrap();
        let folder = repo(page).parent().unwrap().to_path_buf();
        for link in text.split("](").skip(1) {
            let target = &link[..link.find(')').unwrap()];
            if target.starts_with("http") {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let file = if file.is_empty() {
                repo(page)
            } else {
                folder.join(file)
            };
            let linked = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{page}: link {target}: {e}"));
            assert!(
                fragment.is_empty() || anchors(&linked).iter().any(|a| a == fragment),
                "{page}: link {target}: no such heading"
            );
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} links found");
}
