//! The README's pictures are current: every command of `docs/pictures.txt` is run in an
//! empty folder and each file it writes under `out/` must equal the one in `docs/`
//! (`bash docs/regenerate.sh` rewrites them).

mod common;

use common::{lockcheck_within, repo, workdir};
use std::time::Duration;

#[test]
fn the_pictures_in_docs_are_what_the_commands_draw() {
    let dir = workdir("docs-pictures");
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let root = repo("").display().to_string();
    let root = root.trim_end_matches('/');
    let list = std::fs::read_to_string(repo("docs/pictures.txt")).unwrap();
    for line in list
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let line = line.replace("{repo}", root);
        let args: Vec<&str> = line.split_whitespace().collect();
        let out = lockcheck_within(&dir, &args, Duration::from_secs(600));
        assert!(out.code <= 1, "{line}: {}", out.stderr);
    }
    let mut compared = 0;
    for entry in std::fs::read_dir(dir.join("out")).unwrap() {
        let file = entry.unwrap().path();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let drawn = std::fs::read_to_string(&file).unwrap();
        let kept = std::fs::read_to_string(repo(&format!("docs/{name}")))
            .unwrap_or_else(|_| panic!("docs/{name} is missing: run bash docs/regenerate.sh"));
        assert!(
            drawn == kept,
            "docs/{name} is not what the command draws now: run bash docs/regenerate.sh"
        );
        compared += 1;
    }
    assert_eq!(compared, 4);
}
