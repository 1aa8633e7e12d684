//! A sweep's verdicts as a table and as a heat map of the safe and unsafe regions (first
//! parameter across, second up; a one-parameter sweep is a single row).

use super::escape;
use crate::report::fired::{in_words, FiredFault};
use crate::scenario::duration;
use serde::Serialize;
use std::fmt::Write;

/// The verdict at one point of a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Safe,
    Violated,
    /// A limit ended the search before a verdict.
    Unknown,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Safe => "safe",
            Verdict::Violated => "VIOLATED",
            Verdict::Unknown => "limit",
        }
    }
    fn color(self) -> &'static str {
        match self {
            Verdict::Safe => "#3aa55d",
            Verdict::Violated => "#d64541",
            Verdict::Unknown => "#b0b0b0",
        }
    }
}

/// One point of the grid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// One value (ms) per parameter, in parameter order.
    pub values_ms: Vec<u64>,
    pub verdict: Verdict,
    pub oracle: Option<String>,
    pub states: u64,
    /// The saved trace of a violation at this point.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// Its swimlane chart (HTML), which the heat map's cell links to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chart: Option<String>,
    /// The faults of the violation's run, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<FiredFault>,
}

/// A sweep: its parameters and the verdict at every point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sweep {
    pub scenario: String,
    /// Parameter names and their values (ms).
    pub params: Vec<(String, Vec<u64>)>,
    pub cells: Vec<Cell>,
}

fn fmt(ms: u64) -> String {
    duration::format(ms as i64)
}

impl Sweep {
    /// A text table: one line per point.
    pub fn table(&self) -> String {
        let mut s = String::new();
        for (name, _) in &self.params {
            let _ = write!(s, "{name:>10}  ");
        }
        let _ = writeln!(s, "{:<9} {:>10}  oracle", "verdict", "states");
        for c in &self.cells {
            for v in &c.values_ms {
                let _ = write!(s, "{:>10}  ", fmt(*v));
            }
            let _ = writeln!(
                s,
                "{:<9} {:>10}  {}",
                c.verdict.word(),
                c.states,
                c.oracle.as_deref().unwrap_or("-")
            );
        }
        s
    }

    fn cell(&self, i: usize, j: usize) -> Option<&Cell> {
        let xs = &self.params[0].1;
        let ys = self.params.get(1).map_or(&[0][..], |p| &p.1[..]);
        let (x, y) = (xs[i], ys[j]);
        self.cells
            .iter()
            .find(|c| c.values_ms[0] == x && (self.params.len() < 2 || c.values_ms[1] == y))
    }

    /// One cell: a rectangle coloured by its verdict with the point's values (and a
    /// violation's faults) in its title, linked to the point's swimlane chart when there is
    /// one.
    fn cell_svg(&self, s: &mut String, c: &Cell, (x, y): (f64, f64), (cw, ch): (f64, f64)) {
        let values: Vec<String> = self
            .params
            .iter()
            .zip(&c.values_ms)
            .map(|((n, _), v)| format!("{n}={}", fmt(*v)))
            .collect();
        let faults = if c.faults.is_empty() {
            String::new()
        } else {
            escape(&format!("; faults: {}", in_words(&c.faults)))
        };
        if let Some(chart) = &c.chart {
            let _ = write!(s, r##"<a href="{}">"##, escape(chart));
        }
        let _ = write!(
            s,
            r##"<rect class="cell {}" x="{x:.1}" y="{y:.1}" width="{cw:.1}" height="{ch:.1}" fill="{}" stroke="#fff" stroke-width="0.5"><title>{}: {}{}</title></rect>"##,
            c.verdict.word().to_lowercase(),
            c.verdict.color(),
            escape(&values.join(", ")),
            c.verdict.word(),
            c.oracle
                .as_deref()
                .map(|o| format!(" ({o})"))
                .unwrap_or_default()
                + &faults
        );
        s.push_str(if c.chart.is_some() { "</a>\n" } else { "\n" });
    }

    /// The heat map as an SVG document.
    pub fn svg(&self) -> String {
        let xs = &self.params[0].1;
        let one = vec![0];
        let ys = self.params.get(1).map_or(&one, |p| &p.1);
        let cw = (760.0 / xs.len() as f64).clamp(8.0, 60.0);
        let ch = (420.0 / ys.len() as f64).clamp(8.0, 40.0);
        let (left, top) = (90.0, 50.0);
        let w = left + cw * xs.len() as f64 + 150.0;
        let h = top + ch * ys.len() as f64 + 70.0;
        let mut s = String::new();
        let _ = writeln!(
            s,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif" font-size="11">"##
        );
        let title = match self.params.get(1) {
            Some((y, _)) => format!(
                "{}: verdict by {} and {}",
                self.scenario, self.params[0].0, y
            ),
            None => format!("{}: verdict by {}", self.scenario, self.params[0].0),
        };
        let _ = writeln!(
            s,
            r##"<text x="10" y="22" font-size="14" font-weight="bold">{}</text>"##,
            escape(&title)
        );
        for (j, _) in ys.iter().enumerate() {
            for (i, _) in xs.iter().enumerate() {
                let Some(c) = self.cell(i, j) else { continue };
                let x = left + cw * i as f64;
                // Second parameter grows upwards.
                let y = top + ch * (ys.len() - 1 - j) as f64;
                self.cell_svg(&mut s, c, (x, y), (cw, ch));
            }
        }
        let label_every =
            |n: usize, size: f64| ((n as f64 * 34.0 / (size * n as f64)).ceil() as usize).max(1);
        let ex = label_every(xs.len(), cw);
        let base = top + ch * ys.len() as f64;
        for (i, v) in xs.iter().enumerate().filter(|(i, _)| i % ex == 0) {
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                left + cw * (i as f64 + 0.5),
                base + 14.0,
                fmt(*v)
            );
        }
        let _ = writeln!(
            s,
            r##"<text class="axis-x" x="{:.1}" y="{:.1}" text-anchor="middle" font-weight="bold">{}</text>"##,
            left + cw * xs.len() as f64 / 2.0,
            base + 32.0,
            escape(&self.params[0].0)
        );
        if let Some((yname, _)) = self.params.get(1) {
            let ey = label_every(ys.len(), ch * 2.0);
            for (j, v) in ys.iter().enumerate().filter(|(j, _)| j % ey == 0) {
                let _ = writeln!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                    left - 4.0,
                    top + ch * (ys.len() - 1 - j) as f64 + ch / 2.0 + 4.0,
                    fmt(*v)
                );
            }
            let _ = writeln!(
                s,
                r##"<text class="axis-y" x="16" y="{:.1}" font-weight="bold" transform="rotate(-90 16 {:.1})" text-anchor="middle">{}</text>"##,
                top + ch * ys.len() as f64 / 2.0,
                top + ch * ys.len() as f64 / 2.0,
                escape(yname)
            );
        }
        // Where the two parameters are equal (e.g. pause = ttl), when their ranges meet.
        if let Some((yname, _)) = self.params.get(1) {
            let points: Vec<String> = xs
                .iter()
                .enumerate()
                .filter_map(|(i, x)| {
                    let j = ys.iter().position(|y| y == x)?;
                    let px = left + cw * (i as f64 + 0.5);
                    let py = top + ch * (ys.len() - 1 - j) as f64 + ch / 2.0;
                    Some(format!("{px:.1},{py:.1}"))
                })
                .collect();
            if points.len() >= 2 {
                let last = points.last().expect("two points").clone();
                let (lx, ly) = last.split_once(',').expect("x,y");
                let _ = writeln!(
                    s,
                    r##"<g class="diagonal"><polyline points="{}" fill="none" stroke="#000" stroke-width="1.5" stroke-dasharray="5 3"/><text x="{lx}" y="{}" font-weight="bold" text-anchor="end">{} = {}</text></g>"##,
                    points.join(" "),
                    ly.parse::<f64>().unwrap_or(0.0) - 6.0,
                    escape(yname),
                    escape(&self.params[0].0)
                );
            }
        }
        let lx = left + cw * xs.len() as f64 + 20.0;
        s.push_str("<g class=\"legend\">");
        for (k, v) in [Verdict::Safe, Verdict::Violated, Verdict::Unknown]
            .iter()
            .enumerate()
        {
            let y = top + 20.0 * k as f64;
            let _ = writeln!(
                s,
                r##"<rect x="{lx:.1}" y="{y:.1}" width="14" height="14" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"##,
                v.color(),
                lx + 20.0,
                y + 11.0,
                match v {
                    Verdict::Safe => "no violation",
                    Verdict::Violated => "violated",
                    Verdict::Unknown => "limit reached",
                }
            );
        }
        s.push_str("</g>\n</svg>\n");
        s
    }

    /// A self-contained HTML page: the heat map and the table.
    pub fn html(&self) -> String {
        let mut s =
            String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        let _ = writeln!(s, "<title>sweep of {}</title>", escape(&self.scenario));
        s.push_str("<style>body{font-family:sans-serif;margin:20px}table{border-collapse:collapse}td,th{padding:2px 8px;border:1px solid #ddd;text-align:right}.safe{background:#dff3e4}.violated{background:#f8d7d6}.limit{background:#eee}</style>\n</head>\n<body>\n");
        let _ = writeln!(s, "<h1>Sweep of {}</h1>", escape(&self.scenario));
        s.push_str(&self.svg());
        s.push_str("<table>\n<tr>");
        for (n, _) in &self.params {
            let _ = write!(s, "<th>{}</th>", escape(n));
        }
        s.push_str("<th>verdict</th><th>oracle</th><th>states</th></tr>\n");
        for c in &self.cells {
            let _ = write!(s, "<tr class=\"{}\">", c.verdict.word().to_lowercase());
            for v in &c.values_ms {
                let _ = write!(s, "<td>{}</td>", fmt(*v));
            }
            let _ = writeln!(
                s,
                "<td>{}</td><td>{}</td><td>{}</td></tr>",
                c.verdict.word(),
                escape(c.oracle.as_deref().unwrap_or("-")),
                c.states
            );
        }
        s.push_str("</table>\n</body>\n</html>\n");
        s
    }
}
