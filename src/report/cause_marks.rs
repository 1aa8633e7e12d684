//! Drawing the causes on the swimlane chart: partitions as shaded cut lanes, clock steps as
//! a marker with the jump's size, crashes and restarts as markers, a key's TTL by true time
//! as a dashed outline next to its bar by the node's clock, the events the violation depends
//! on ringed in red; message arrows that changed nothing drawn thin and faint.

use super::escape;
use super::seconds;
use super::swimlane::{Arrow, Chart, ROW};
use std::fmt::Write;

const CLOCK_STEP: &str = "#e65100";
const CUT: &str = "#7b1fa2";
const CAUSE: &str = "#d00000";

impl Chart {
    /// The causes, drawn over the key and belief bars and under the arrows.
    pub(super) fn draw_causes(&self, s: &mut String) {
        for cut in &self.causes.cuts {
            let (x0, x1) = (self.x(cut.from_ms), self.x(cut.to_ms));
            for &lane in &cut.lanes {
                let _ = writeln!(
                    s,
                    r##"<rect class="partition" data-process="{}" x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{CUT}" fill-opacity="0.13" stroke="{CUT}" stroke-dasharray="2 2"><title>{}</title></rect>"##,
                    escape(&self.lanes[lane].0),
                    self.lane_top(lane),
                    (x1 - x0).max(2.0),
                    self.lane_height(lane),
                    escape(&cut.text)
                );
            }
        }
        for key in &self.causes.true_time_keys {
            let Some(bar) = self
                .keys
                .iter()
                .rfind(|k| k.lane == key.lane && k.text == key.key_text)
            else {
                continue;
            };
            let (x0, x1) = (self.x(bar.from_ms), self.x(key.to_ms));
            let y = self.lane_top(key.lane) + 24.0 + ROW * bar.row as f64;
            let _ = writeln!(
                s,
                r##"<rect class="true-time-key" data-process="{}" x="{x0:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="{CLOCK_STEP}" stroke-width="1.5" stroke-dasharray="5 3"><title>{} by true time: the TTL runs to {}; the node's stepped clock ends it at {}</title></rect>"##,
                escape(&self.lanes[key.lane].0),
                (x1 - x0).max(2.0),
                ROW - 3.0,
                escape(&key.key_text),
                seconds(key.to_ms),
                seconds(key.by_clock_ms)
            );
        }
        for m in &self.causes.marks {
            self.draw_mark(s, m);
        }
    }

    fn draw_mark(&self, s: &mut String, m: &super::causes::Mark) {
        let x = self.x(m.at_ms);
        let top = self.lane_top(m.lane);
        let mid = self.lane_mid(m.lane);
        let title = format!("<title>{} at {}</title>", escape(&m.text), seconds(m.at_ms));
        let _ = match m.kind {
            "clock-step" => writeln!(
                s,
                r##"<g class="clock-step" data-process="{}"><line x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{:.1}" stroke="{CLOCK_STEP}" stroke-width="3"/><path d="M {x:.1} {top:.1} l -6 -8 h 12 z" fill="{CLOCK_STEP}"/><text x="{:.1}" y="{:.1}" fill="{CLOCK_STEP}" font-weight="bold">{}</text>{title}</g>"##,
                escape(&self.lanes[m.lane].0),
                top + self.lane_height(m.lane),
                x + 5.0,
                top + 12.0,
                escape(&m.text)
            ),
            "parting" => writeln!(
                s,
                r##"<g class="parting" data-process="{}"><line x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{:.1}" stroke="#1565c0" stroke-width="2" stroke-dasharray="6 3"/>{title}</g>"##,
                escape(&self.lanes[m.lane].0),
                top + self.lane_height(m.lane)
            ),
            "diverged" => writeln!(
                s,
                r##"<g class="diverged" data-process="{}"><line x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{:.1}" stroke="#d00000" stroke-width="3" stroke-dasharray="4 2"/><text x="{:.1}" y="{:.1}" fill="#d00000" font-weight="bold">≠</text>{title}</g>"##,
                escape(&self.lanes[m.lane].0),
                top + self.lane_height(m.lane),
                x + 4.0,
                top + 12.0
            ),
            "crash" | "restart" => writeln!(
                s,
                r##"<g class="{}" data-process="{}"><text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="15" font-weight="bold" fill="#000">{}</text>{title}</g>"##,
                m.kind,
                escape(&self.lanes[m.lane].0),
                mid + 5.0,
                if m.kind == "crash" { "✕" } else { "↻" }
            ),
            _ => writeln!(
                s,
                r##"<circle class="cause" data-process="{}" cx="{x:.1}" cy="{mid:.1}" r="6" fill="none" stroke="{CAUSE}" stroke-width="2">{title}</circle>"##,
                escape(&self.lanes[m.lane].0)
            ),
        };
    }

    fn is_cause(&self, a: &Arrow) -> bool {
        self.causes.cause_steps.binary_search(&a.step).is_ok()
    }

    fn is_quiet(&self, a: &Arrow) -> bool {
        self.causes.changes.get(a.step) == Some(&false)
    }

    /// `msg`, with `cause` or `quiet` when the arrow is one.
    pub(super) fn arrow_class(&self, a: &Arrow) -> &'static str {
        if self.is_cause(a) {
            "msg cause"
        } else if self.is_quiet(a) {
            "msg quiet"
        } else {
            "msg"
        }
    }

    /// Stroke attributes: red and thick for a cause, thin and faint when it changed nothing.
    pub(super) fn arrow_style(&self, a: &Arrow) -> &'static str {
        if self.is_cause(a) {
            r##"stroke="#d00000" stroke-width="2" marker-end="url(#arrow)""##
        } else if self.is_quiet(a) {
            r##"stroke="#555" stroke-width="0.6" stroke-opacity="0.35""##
        } else {
            r##"stroke="#555" stroke-width="1" marker-end="url(#arrow)""##
        }
    }

    /// The legend of the causes and the list of events the violation depends on, with its
    /// mechanism: the lines of the `why` block `check`, `replay` and `shrink` print.
    pub(super) fn cause_legend(&self) -> String {
        let mut s = format!(
            r##"<p class="legend causes"><span><i class="sw" style="background:{CLOCK_STEP}"></i>clock step (size on the marker; dashed outline: the key's TTL by true time)</span><span><i class="sw" style="background:{CUT};opacity:.3"></i>partition: cut links</span><span>✕ crash ↻ restart</span><span><i class="sw" style="border:2px solid {CAUSE};border-radius:7px"></i>an event the violation depends on</span></p>"##
        );
        s.push('\n');
        if !self.causes.why.events.is_empty() {
            s.push_str("<h2>What the violation depends on</h2>\n<ul class=\"causes\">\n");
            for line in self.causes.why.lines(false) {
                let _ = writeln!(s, "<li>{}</li>", escape(&line));
            }
            s.push_str("</ul>\n");
        }
        s
    }
}
