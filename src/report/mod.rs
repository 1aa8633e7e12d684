//! What lockcheck shows people and programs: a run as a text timeline and as a swimlane
//! chart (SVG, or self-contained HTML) that draws the causes of a violation, and a sweep as
//! a table and a heat map.

mod causal;
mod causal_links;
mod cause_marks;
pub mod causes;
pub(crate) mod compact_grid;
pub mod explained;
pub mod fired;
pub mod heatmap;
mod mechanism;
pub(crate) mod overlap_end;
pub mod parting;
pub mod real_run;
pub mod swimlane;
pub mod timeline;
pub mod why;

/// Escapes text for XML and HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `12345` ms as `12.345 s`.
pub fn seconds(ms: u64) -> String {
    format!("{}.{:03} s", ms / 1_000, ms % 1_000)
}
