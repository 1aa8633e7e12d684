//! `explain` as a user runs it: the HTML page and the SVG, parsed, with the lanes, pauses,
//! message arrows (thin when they changed nothing), lock keys, beliefs, the overlap and the
//! violation where they belong.

mod common;

use common::{json, lockcheck_within, with_class, with_svg, workdir, Out};
use std::path::Path;
use std::time::Duration;

const SMALL: &str = "kleppmann-pause-past-lease";

fn lockcheck_in(dir: &Path, args: &[&str]) -> Out {
    lockcheck_within(dir, args, Duration::from_secs(300))
}

#[test]
fn explain_draws_a_swimlane_chart() {
    let dir = workdir("explain");
    assert_eq!(
        lockcheck_in(&dir, &["check", SMALL, "-o", "k.json"]).code,
        1
    );
    let out = lockcheck_in(&dir, &["explain", "k.json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("wrote k.html"));
    let html = std::fs::read_to_string(dir.join("k.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(
        !html.contains("<script src") && !html.contains("<link"),
        "self-contained"
    );
    assert!(html.contains("class=\"timeline\""));
    with_svg(&html, |doc| {
        let lanes: Vec<&str> = with_class(&doc, "lane")
            .iter()
            .map(|n| n.attribute("data-process").unwrap())
            .collect();
        assert_eq!(lanes, ["redis", "account", "client-1", "client-2"]);
        let pauses = with_class(&doc, "pause");
        assert_eq!(pauses.len(), 1);
        assert_eq!(pauses[0].attribute("data-process"), Some("client-1"));
        assert!(with_class(&doc, "msg").len() > 10);
        // Arrows that changed no lock key, belief or account are thin, without a head.
        let (quiet, loud): (Vec<_>, Vec<_>) = with_class(&doc, "msg")
            .into_iter()
            .partition(|m| m.attribute("class") == Some("msg quiet"));
        assert!(!loud.is_empty() && !quiet.is_empty());
        assert!(loud
            .iter()
            .all(|m| m.attribute("marker-end") == Some("url(#arrow)")));
        assert!(quiet
            .iter()
            .all(|m| m.attribute("marker-end").is_none()
                && m.attribute("stroke-width") == Some("0.6")));
        let keys = with_class(&doc, "key");
        assert!(keys.len() >= 2, "the lock key of each holder on redis");
        assert!(keys
            .iter()
            .all(|k| k.attribute("data-process") == Some("redis")));
        let believers: Vec<&str> = with_class(&doc, "belief")
            .iter()
            .map(|n| n.attribute("data-process").unwrap())
            .collect();
        assert!(believers.contains(&"client-1") && believers.contains(&"client-2"));
        assert_eq!(with_class(&doc, "overlap").len(), 1);
        assert_eq!(with_class(&doc, "violation").len(), 1);
    });
    let out = lockcheck_in(&dir, &["explain", "k.json", "-o", "k.svg", "--json"]);
    assert_eq!(out.code, 0);
    assert_eq!(json(&out)["format"], "svg");
    let svg = std::fs::read_to_string(dir.join("k.svg")).unwrap();
    with_svg(&svg, |doc| {
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        assert_eq!(with_class(&doc, "lane").len(), 4);
    });
}
