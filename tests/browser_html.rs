//! The HTML reports in a real browser: `explain`'s page and the heat map are loaded in
//! headless Chromium (Debian's `chromium`, which `.ci/run` installs), screenshotted, and
//! probed by a script added to a copy of each page: no script error, and the lanes, the
//! overlap, the causes and the legend laid out with a size inside the page. Without a
//! Chromium the test says so and passes, unless `LOCKCHECK_REQUIRE_CHROMIUM` is set (CI).

mod common;

use common::{lockcheck_within, repo, workdir};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let out = Command::new("sh")
                .args(["-c", &format!("command -v {name}")])
                .output()
                .ok()?;
            let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
            (out.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
        })
}

/// Reports script errors and, for each selector, how many elements match and how many
/// have a size and lie within the page.
const PROBE: &str = r#"<script>
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(String(e.message)));
window.addEventListener('load', () => {
  const page = document.documentElement.getBoundingClientRect();
  const seen = {};
  for (const sel of SELECTORS) {
    const all = Array.from(document.querySelectorAll(sel));
    const shown = all.filter(el => {
      const r = el.getBoundingClientRect();
      const st = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none'
        && r.right > 0 && r.left < page.width + 1;
    });
    seen[sel] = [all.length, shown.length];
  }
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify({errors: window.__errors, seen});
  document.body.appendChild(pre);
});
</script>"#;

/// Loads `page` with the probe; returns what the probe saw, and saves a screenshot.
fn probe(browser: &Path, page: &Path, selectors: &[&str], shot: &Path) -> serde_json::Value {
    let html = std::fs::read_to_string(page).unwrap();
    let list = serde_json::to_string(selectors).unwrap();
    let script = PROBE.replace("SELECTORS", &list);
    let probed = page.with_extension("probe.html");
    std::fs::write(
        &probed,
        html.replacen("<head>", &format!("<head>\n{script}"), 1),
    )
    .unwrap();
    let url = format!("file://{}", probed.display());
    let flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
    ];
    let dom = Command::new(browser)
        .args(flags)
        .args(["--window-size=1300,900", "--dump-dom", &url])
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&dom.stdout);
    let start = dom.find("<pre id=\"probe\">").expect("the probe ran") + "<pre id=\"probe\">".len();
    let end = start + dom[start..].find("</pre>").unwrap();
    let text = dom[start..end]
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    let shot_arg = format!("--screenshot={}", shot.display());
    let status = Command::new(browser)
        .args(flags)
        .args([
            "--window-size=1300,900",
            &shot_arg,
            &format!("file://{}", page.display()),
        ])
        .output()
        .expect("run chromium");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let png = std::fs::read(shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn assert_shown(seen: &serde_json::Value, selector: &str, at_least: u64) {
    let [all, shown] = [&seen["seen"][selector][0], &seen["seen"][selector][1]];
    let shown = shown.as_u64().unwrap_or(0);
    assert!(shown >= at_least, "{selector}: {shown} of {all} visible");
}

#[test]
fn explain_and_the_heat_map_render_in_chromium() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("LOCKCHECK_REQUIRE_CHROMIUM").is_none(),
            "LOCKCHECK_REQUIRE_CHROMIUM is set but no chromium is installed"
        );
        println!("skipped: no chromium on PATH (apt-get install chromium)");
        return;
    };
    let dir = workdir("browser");
    let run = |args: &[&str]| lockcheck_within(&dir, args, LIMIT);
    run(&["check", "seed-000-redlock-clock-drift", "-o", "c.json"]);
    assert_eq!(run(&["explain", "c.json", "-o", "c.html"]).code, 0);
    let file = repo("scenarios/pause-past-lease.toml")
        .display()
        .to_string();
    let sweep = [
        "sweep",
        &file,
        "--vary",
        "ttl=2s..10s:4s",
        "--vary",
        "pause=0s..20s:10s",
        "--html",
        "heat.html",
    ];
    assert_eq!(run(&sweep).code, 1);

    let explain = probe(
        &browser,
        &dir.join("c.html"),
        &[
            ".lane",
            ".overlap",
            ".legend",
            ".clock-step",
            ".partition",
            ".cause",
            ".key",
            ".msg",
        ],
        &dir.join("explain.png"),
    );
    println!("explain: {explain}");
    assert_eq!(explain["errors"], serde_json::json!([]), "{explain}");
    assert_shown(&explain, ".lane", 8);
    for one in [".overlap", ".clock-step", ".legend"] {
        assert_shown(&explain, one, 1);
    }
    assert_shown(&explain, ".partition", 3);
    assert_shown(&explain, ".cause", 3);

    let heat = probe(
        &browser,
        &dir.join("heat.html"),
        &[".cell", ".legend", "a .cell.violated"],
        &dir.join("heat.png"),
    );
    println!("heat map: {heat}");
    assert_eq!(heat["errors"], serde_json::json!([]), "{heat}");
    assert_shown(&heat, ".cell", 9);
    assert_shown(&heat, ".legend", 1);
    assert_shown(&heat, "a .cell.violated", 1);
}
