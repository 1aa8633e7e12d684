//! Oracles that cannot see the configured protocol are refused with their field
//! (`oracles[i]`): the account oracle without an account, the renewal witness without a
//! client that renews, the detector oracles without a detector. Oracles whose trigger no
//! fault of the envelope can cause are warned of, not refused (a sweep's baseline sets a
//! budget to nothing), by `Scenario::inert_warnings` and by `check` in text and `--json`.

mod common;

use common::{json, lockcheck_within, workdir};
use lockcheck::scenario::{builtin, ProtocolSpec, Scenario};
use std::time::Duration;

fn builtin(name: &str) -> Scenario {
    builtin::by_name(name).unwrap_or_else(|| panic!("no built-in {name}"))
}

/// The index of oracle `name` in `s`.
fn index_of(s: &Scenario, name: &str) -> usize {
    (s.oracles.iter().position(|o| o.name() == name)).unwrap_or_else(|| panic!("{name}"))
}

/// `s` must be refused at its oracle `name`, with `words` in the message.
fn assert_refused_at(s: &Scenario, name: &str, words: &[&str]) {
    let field = format!("oracles[{}]", index_of(s, name));
    let e = match s.build() {
        Ok(_) => panic!("{}: built with a blind {name}", s.name),
        Err(e) => e,
    };
    assert_eq!(e.field, field, "{e}");
    for w in words.iter().chain(&[name]) {
        assert!(e.message.contains(w), "{w:?} not in: {e}");
    }
}

#[test]
fn the_account_oracle_without_an_account_is_refused() {
    let mut s = builtin("kleppmann-pause-past-lease");
    s.account = None;
    for c in &mut s.clients {
        c.workload.uses_account = false;
    }
    assert_refused_at(&s, "me-resource", &["account"]);
}

#[test]
fn the_renewal_witness_without_a_renewing_client_is_refused() {
    let mut s = builtin("seed-003-incident");
    assert!(s.build().is_ok(), "Redisson's lock() renews");
    for c in &mut s.clients {
        if let ProtocolSpec::Redisson { lease_ms, .. } = &mut c.protocol {
            *lease_ms = Some(30_000);
        }
    }
    assert_refused_at(&s, "renewal-failed", &["renews", "watchdog"]);
}

#[test]
fn a_detector_oracle_without_a_detector_is_refused() {
    let mut s = builtin("seed-000-detector-self-cycle");
    assert!(s.build().is_ok());
    let detection = s.detection.as_mut().expect("a detection section");
    for service in &mut detection.services {
        service.local_detector = None;
    }
    detection.detectors.clear();
    assert_refused_at(&s, "detector-false-positive", &["detector"]);
}

#[test]
fn a_deadlock_oracle_needs_no_detector() {
    let s = builtin("ttl-expiry-breaks-deadlock");
    index_of(&s, "deadlock-formed");
    let no_detector = s.detection.as_ref().is_none_or(|d| {
        d.detectors.is_empty() && d.services.iter().all(|s| s.local_detector.is_none())
    });
    assert!(no_detector);
    assert!(
        s.build().is_ok(),
        "deadlock oracles judge the true wait-for graph"
    );
}

#[test]
fn oracles_no_fault_can_trigger_are_warned_of_with_their_field() {
    let mut s = builtin("single-node-holder-crash");
    assert_eq!(s.inert_warnings(), []);
    s.faults.max_crashes = 0;
    assert!(s.build().is_ok(), "warned of, not refused");
    let warnings = s.inert_warnings();
    let fields: Vec<&str> = warnings.iter().map(|(f, _)| f.as_str()).collect();
    let expected = [
        format!("oracles[{}]", index_of(&s, "liveness")),
        format!("oracles[{}]", index_of(&s, "holder-crashed")),
    ];
    assert_eq!(fields, expected);
    assert!(
        warnings[0].1.contains("crashes or is cut off"),
        "{warnings:?}"
    );
    let mut paused = builtin("kleppmann-pause-past-lease");
    assert_eq!(paused.inert_warnings(), []);
    paused.faults.pauses.clear();
    let warnings = paused.inert_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0]
        .1
        .contains("`pause-while-holding` looks for a pause of a client"));
}

#[test]
fn every_builtin_builds_and_none_is_warned_of() {
    for s in builtin::all() {
        if let Err(e) = s.build() {
            panic!("{}: {e}", s.name);
        }
        assert_eq!(s.inert_warnings(), [], "{}", s.name);
    }
}

#[test]
fn check_prints_the_warnings_and_refuses_a_blind_oracle() {
    let dir = workdir("inert_oracles_cli");
    let limit = Duration::from_secs(60);
    let args = [
        "check",
        "single-node-holder-crash",
        "--set",
        "faults.max_crashes=0",
        "--threads",
        "1",
    ];
    let text = lockcheck_within(&dir, &args, limit);
    assert!(
        text.stdout
            .contains("warning: oracles[1]: `liveness` looks for a client that crashes"),
        "{}",
        text.stdout
    );
    let mut with_json = vec!["--json"];
    with_json.extend(args);
    let j = json(&lockcheck_within(&dir, &with_json, limit));
    let warnings = j["scenario_warnings"].as_array().expect("a list");
    assert_eq!(warnings.len(), 2, "{j}");
    assert_eq!(warnings[0]["field"], "oracles[1]");
    let mut s = builtin("seed-003-incident");
    for c in &mut s.clients {
        if let ProtocolSpec::Redisson { lease_ms, .. } = &mut c.protocol {
            *lease_ms = Some(30_000);
        }
    }
    let file = dir.join("no-renewals.toml");
    std::fs::write(&file, lockcheck::scenario::to_toml::to_toml(&s)).unwrap();
    let out = lockcheck_within(&dir, &["check", file.to_str().unwrap()], limit);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    let field = format!("oracles[{}]", index_of(&s, "renewal-failed"));
    assert!(out.stderr.contains(&field), "{}", out.stderr);
    assert!(out.stderr.contains("renewal-failed"), "{}", out.stderr);
}
