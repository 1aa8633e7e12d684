//! Every scenario file in `scenarios/` that shares its name with a built-in says the same
//! thing: read and checked, it gets the built-in's verdict, the same violated oracle and
//! the same number of unique states.

use lockcheck::check::{check, Mode};
use lockcheck::scenario::builtin;
use lockcheck::scenario::file::scenario_from_toml;

#[test]
fn each_scenario_file_answers_as_the_built_in_of_its_name() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    let mut compared = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = scenario_from_toml(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let Some(built_in) = builtin::by_name(&file.name) else {
            continue;
        };
        let (a, b) = (
            check(&file, Mode::Exhaustive).unwrap(),
            check(&built_in, Mode::Exhaustive).unwrap(),
        );
        assert_eq!(a.violated(), b.violated(), "{}", file.name);
        assert_eq!(
            a.report.stats.unique_states, b.report.stats.unique_states,
            "{}",
            file.name
        );
        compared.push(file.name);
    }
    for name in [
        "node-redlock-5-pause-during-extend",
        "redisson-fair-lock-dead-waiter",
        "node-redlock-5-pause-during-acquire",
        "node-redlock-5-using-abort-before-write",
    ] {
        assert!(compared.iter().any(|c| c == name), "{name}: {compared:?}");
    }
}
