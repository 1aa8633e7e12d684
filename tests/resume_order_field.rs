//! `faults.resume_order` in scenario files: read into the world, written back by `show
//! --toml` only when it is not the default, and any other value refused naming the field.

use lockcheck::scenario::builtin;
use lockcheck::scenario::file::scenario_from_toml;
use lockcheck::scenario::to_toml::to_toml;
use lockcheck_sim::world::ResumeOrder;

const FILE: &str = include_str!("../scenarios/node-redlock-5-using-abort-before-write.toml");

#[test]
fn a_scenario_file_sets_the_resume_order_of_its_world() {
    let scenario = scenario_from_toml(FILE).unwrap();
    assert_eq!(scenario.faults.resume_order, ResumeOrder::Due);
    assert_eq!(scenario.build().unwrap().resume_order(), ResumeOrder::Due);
    let without = FILE.replace("resume_order = \"due\"", "");
    let scenario = scenario_from_toml(&without).unwrap();
    assert_eq!(scenario.build().unwrap().resume_order(), ResumeOrder::Any);
}

#[test]
fn show_toml_writes_the_resume_order_only_when_it_is_due() {
    let due = builtin::by_name("node-redlock-5-using-abort-before-write").unwrap();
    let any = builtin::by_name("node-redlock-5-using-write-before-abort").unwrap();
    assert!(to_toml(&due).contains("resume_order = \"due\""));
    assert!(!to_toml(&any).contains("resume_order"));
    let back = scenario_from_toml(&to_toml(&due)).unwrap();
    assert_eq!(back.faults.resume_order, ResumeOrder::Due);
}

#[test]
fn any_other_resume_order_is_refused_naming_the_field() {
    let bad = FILE.replace("resume_order = \"due\"", "resume_order = \"fifo\"");
    let err = scenario_from_toml(&bad).unwrap_err().to_string();
    assert!(err.contains("faults.resume_order"), "{err}");
    assert!(err.contains("expected `any` or `due`"), "{err}");
}
