//! A run as a swimlane chart: true time across, one lane per process; pauses and crashes
//! shaded, messages as arrows from send to delivery, each Redis node's lock keys as bars
//! (coloured by the owner written in them), each client's belief that it holds a lock, and
//! the stretch where two clients hold the same lock highlighted in red. SVG, or a
//! self-contained HTML page with the chart, a legend and the timeline.

use super::causes::Causes;
use super::{escape, seconds, timeline};
use crate::oracles::{self, RedisState, RedisWorld};
use lockcheck_model::process::{Process, ProcessState};
use lockcheck_model::redis::Value;
use lockcheck_sim::world::{Life, WorldAction};
use lockcheck_sim::Path;
use std::fmt::Write;

/// A stretch of true time, `[from_ms, to_ms)`, with a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub lane: usize,
    pub from_ms: u64,
    pub to_ms: u64,
    pub text: String,
    /// Which client it belongs to (colour), if any.
    pub owner: Option<usize>,
    /// Row within the lane (stacked bars).
    pub row: usize,
}

/// A delivered message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrow {
    pub from_lane: usize,
    pub to_lane: usize,
    pub sent_ms: u64,
    pub delivered_ms: u64,
    pub text: String,
    /// The index of the delivering step in the path.
    pub step: usize,
}

/// Everything the chart draws.
#[derive(Clone, Debug, Default)]
pub struct Chart {
    pub title: String,
    pub subtitle: String,
    pub lanes: Vec<(String, &'static str)>,
    pub rows: Vec<usize>,
    pub end_ms: u64,
    pub pauses: Vec<Span>,
    pub downs: Vec<Span>,
    pub keys: Vec<Span>,
    pub beliefs: Vec<Span>,
    pub arrows: Vec<Arrow>,
    pub overlaps: Vec<(u64, u64)>,
    /// Where and which oracle fired.
    pub violation: Option<(u64, String)>,
    pub clients: Vec<usize>,
    /// Clock steps, partitions, crashes and the events the violation depends on.
    pub causes: Causes,
}

/// Merges per-state samples `(state index, lane, row key, text, owner)` into spans.
struct Sampler {
    open: Vec<(usize, String, String, Option<usize>, u64, u64)>,
    done: Vec<Span>,
}

impl Sampler {
    fn new() -> Self {
        Sampler {
            open: Vec::new(),
            done: Vec::new(),
        }
    }
    /// Records that `(lane, key)` shows `text` over `[from, to)`.
    fn sample(
        &mut self,
        lane: usize,
        key: &str,
        text: &str,
        owner: Option<usize>,
        from: u64,
        to: u64,
    ) {
        if let Some(o) = self
            .open
            .iter_mut()
            .find(|o| o.0 == lane && o.1 == key && o.2 == text && o.5 >= from)
        {
            o.5 = o.5.max(to);
            return;
        }
        self.open
            .push((lane, key.to_string(), text.to_string(), owner, from, to));
    }
    fn finish(mut self, rows: &mut [Vec<String>]) -> Vec<Span> {
        for (lane, key, text, owner, from, to) in self.open.drain(..) {
            let row = match rows[lane].iter().position(|k| *k == key) {
                Some(r) => r,
                None => {
                    rows[lane].push(key);
                    rows[lane].len() - 1
                }
            };
            self.done.push(Span {
                lane,
                from_ms: from,
                to_ms: to.max(from + 1),
                text,
                owner,
                row,
            });
        }
        self.done
    }
}

pub(super) fn owner_text(value: &Value) -> String {
    match value {
        Value::String(v) => String::from_utf8_lossy(v).into_owned(),
        Value::Hash(fields) => fields
            .first()
            .map(|(f, _)| String::from_utf8_lossy(f).into_owned())
            .unwrap_or_default(),
        Value::List(items) => items
            .first()
            .map(|item| String::from_utf8_lossy(item).into_owned())
            .unwrap_or_default(),
        Value::SortedSet(members) => members
            .first()
            .map(|(m, _)| String::from_utf8_lossy(m).into_owned())
            .unwrap_or_default(),
    }
}

/// The chart of `path` through `world`.
pub fn chart(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    title: &str,
    subtitle: &str,
    violated: Option<&str>,
) -> Chart {
    let n = world.processes.len();
    let lanes: Vec<(String, &'static str)> = world
        .processes
        .iter()
        .map(|p| {
            let kind = match p.actor {
                Process::Redis(_) => "redis",
                Process::Client(_) | Process::Scripted(_) => "client",
                _ => "service",
            };
            (p.name.clone(), kind)
        })
        .collect();
    let clients: Vec<usize> = oracles::clients(world).map(|(p, _)| p).collect();
    let owner_of = |text: &str| {
        clients
            .iter()
            .copied()
            .filter(|&c| text.starts_with(world.process_name(c)))
            .max_by_key(|&c| world.process_name(c).len())
    };
    let states = &path.states;
    let last = states.last().map_or(0, |s| s.now_ms);
    let end_ms = (last + last / 50).max(last + 1);
    let next_time = |i: usize| states.get(i + 1).map_or(last, |s| s.now_ms);
    let mut keys = Sampler::new();
    let mut beliefs = Sampler::new();
    let mut pauses: Vec<Span> = Vec::new();
    let mut downs = Sampler::new();
    let mut overlaps: Vec<(u64, u64)> = Vec::new();
    for (i, state) in states.iter().enumerate() {
        let (t0, t1) = (state.now_ms, next_time(i).max(state.now_ms));
        for p in 0..n {
            let proc = &state.procs[p];
            if let Some(until) = proc.paused_until_ms {
                match pauses.iter_mut().find(|s| s.lane == p && s.to_ms == until) {
                    Some(s) => s.from_ms = s.from_ms.min(t0),
                    None => pauses.push(Span {
                        lane: p,
                        from_ms: t0,
                        to_ms: until,
                        text: format!("{} paused until {}", world.process_name(p), seconds(until)),
                        owner: None,
                        row: 0,
                    }),
                }
            }
            if let Life::Down { restart_at_ms, .. } = &proc.life {
                let to = restart_at_ms.map_or(t1, |r| r.min(t1.max(t0)));
                downs.sample(
                    p,
                    "down",
                    &format!("{} down", world.process_name(p)),
                    None,
                    t0,
                    to.max(t1),
                );
            }
            if let Some(ProcessState::Redis(node)) = proc.actor_state() {
                let wall = world.local_now(state, p).wall_ms;
                for (key, entry) in node.keyspace.entries() {
                    if entry.is_expired(wall) || key.ends_with(b":token") {
                        continue;
                    }
                    let owner = owner_text(&entry.value);
                    let end = match entry.deadline_ms {
                        Some(d) => (t0 as i64 + (d - wall) + 1).max(t0 as i64) as u64,
                        None => t1,
                    };
                    let key = String::from_utf8_lossy(key).into_owned();
                    let text = format!("{key} = {owner}");
                    keys.sample(p, &key, &text, owner_of(&owner), t0, t1.min(end));
                }
            }
        }
        for (p, c) in oracles::clients(world) {
            for k in oracles::believed_keys(world, state, p, c) {
                let k = String::from_utf8_lossy(k).into_owned();
                let text = format!("{} holds {k}", world.process_name(p));
                beliefs.sample(p, &k, &text, Some(p), t0, t1);
            }
        }
        if oracles::two_holders(world, state) {
            match overlaps.last_mut() {
                Some(o) if o.1 >= t0 => o.1 = o.1.max(t1).max(t0 + 1),
                _ => overlaps.push((t0, t1.max(t0 + 1))),
            }
        }
    }
    let mut rows: Vec<Vec<String>> = vec![Vec::new(); n];
    let keys = keys.finish(&mut rows);
    let mut belief_rows: Vec<Vec<String>> = vec![Vec::new(); n];
    let beliefs = beliefs.finish(&mut belief_rows);
    let mut down_rows: Vec<Vec<String>> = vec![Vec::new(); n];
    let downs = downs.finish(&mut down_rows);
    let rows = (0..n)
        .map(|p| rows[p].len().max(belief_rows[p].len()).max(1))
        .collect();
    let arrows = arrows(path, states);
    Chart {
        title: title.to_string(),
        subtitle: subtitle.to_string(),
        lanes,
        rows,
        end_ms,
        pauses,
        downs,
        keys,
        beliefs,
        arrows,
        overlaps,
        violation: violated.map(|o| (last, o.to_string())),
        clients,
        causes: Causes::default(),
    }
}

/// Every delivered message as an arrow from the step that sent it to the one that delivered
/// it (`states[k]` is the state before step `k`).
fn arrows(path: &Path<RedisWorld>, states: &[RedisState]) -> Vec<Arrow> {
    let mut arrows = Vec::new();
    for (j, step) in path.steps.iter().enumerate() {
        if let WorldAction::Deliver { from, to, msg } = &step.action {
            let present = |s: &RedisState| {
                s.in_flight
                    .iter()
                    .any(|m| m.from == *from && m.to == *to && m.msg == *msg)
                    || s.unrouted
                        .iter()
                        .any(|m| m.from == *from && m.to == *to && m.msg == *msg)
            };
            let mut k = j;
            while k > 0 && present(&states[k - 1]) {
                k -= 1;
            }
            let text = step.label.trim_start_matches("deliver ").to_string();
            arrows.push(Arrow {
                from_lane: *from,
                to_lane: *to,
                sent_ms: states[k].now_ms,
                delivered_ms: states[j + 1].now_ms,
                text,
                step: j,
            });
        }
    }
    arrows
}

const PALETTE: [&str; 6] = [
    "#2f6fdf", "#e08a00", "#2a9d5c", "#9b4dca", "#c2185b", "#00838f",
];
pub(super) const LEFT: f64 = 140.0;
pub(super) const WIDTH: f64 = 1100.0;
pub(super) const ROW: f64 = 16.0;
pub(super) const TOP: f64 = 60.0;

impl Chart {
    fn color(&self, owner: Option<usize>) -> &'static str {
        owner
            .and_then(|o| self.clients.iter().position(|&c| c == o))
            .map_or("#888888", |i| PALETTE[i % PALETTE.len()])
    }
    pub(super) fn x(&self, ms: u64) -> f64 {
        LEFT + WIDTH * ms.min(self.end_ms) as f64 / self.end_ms.max(1) as f64
    }
    pub(super) fn lane_height(&self, p: usize) -> f64 {
        28.0 + ROW * self.rows[p] as f64
    }
    pub(super) fn lane_top(&self, p: usize) -> f64 {
        TOP + (0..p).map(|q| self.lane_height(q) + 6.0).sum::<f64>()
    }
    pub(super) fn lane_mid(&self, p: usize) -> f64 {
        self.lane_top(p) + 14.0
    }

    /// Messages as arrows from sender to receiver, sent to delivered.
    fn draw_arrows(&self, s: &mut String) {
        for a in &self.arrows {
            let (x0, x1) = (self.x(a.sent_ms), self.x(a.delivered_ms));
            let (y0, y1) = (self.lane_mid(a.from_lane), self.lane_mid(a.to_lane));
            let _ = writeln!(
                s,
                r##"<line class="{}" x1="{x0:.1}" y1="{y0:.1}" x2="{x1:.1}" y2="{y1:.1}" {}><title>{} (sent {}, delivered {})</title></line>"##,
                self.arrow_class(a),
                self.arrow_style(a),
                escape(&a.text),
                seconds(a.sent_ms),
                seconds(a.delivered_ms)
            );
        }
    }

    /// The chart as a standalone SVG document.
    pub fn svg(&self) -> String {
        let n = self.lanes.len();
        let height = self.lane_top(n) + 40.0;
        let total_w = LEFT + WIDTH + 30.0;
        let mut s = String::new();
        let _ = writeln!(
            s,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0}" height="{height:.0}" viewBox="0 0 {total_w:.0} {height:.0}" font-family="sans-serif" font-size="11">"##
        );
        s.push_str(r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#d8d8d8"/><line x1="0" y1="0" x2="0" y2="6" stroke="#aaaaaa" stroke-width="3"/></pattern></defs>"##);
        s.push('\n');
        let _ = writeln!(
            s,
            r##"<text x="10" y="20" font-size="15" font-weight="bold">{}</text><text x="10" y="38" fill="#444">{}</text>"##,
            escape(&self.title),
            escape(&clip(&self.subtitle, 170))
        );
        // Lanes.
        for (p, (name, kind)) in self.lanes.iter().enumerate() {
            let y = self.lane_top(p);
            let h = self.lane_height(p);
            let _ = writeln!(
                s,
                r##"<g class="lane" data-process="{name}" data-kind="{kind}"><rect x="{LEFT}" y="{y:.1}" width="{WIDTH}" height="{h:.1}" fill="{}" stroke="#dddddd"/><text x="10" y="{:.1}" font-weight="bold">{name}</text><text x="10" y="{:.1}" fill="#777">{kind}</text></g>"##,
                if p % 2 == 0 { "#fafafa" } else { "#f3f3f3" },
                y + 16.0,
                y + 29.0,
                name = escape(name),
            );
        }
        // Overlap bands behind everything else.
        for &(a, b) in &self.overlaps {
            let (x0, x1) = (self.x(a), self.x(b));
            let _ = writeln!(
                s,
                r##"<rect class="overlap" x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#ff0000" fill-opacity="0.18" stroke="#d00000" stroke-dasharray="4 2"><title>two clients hold the same lock from {} to {}</title></rect>"##,
                TOP - 6.0,
                (x1 - x0).max(2.0),
                self.lane_top(n) - TOP + 6.0,
                seconds(a),
                seconds(b)
            );
        }
        for (class, fill, spans) in [
            ("pause", "url(#hatch)", &self.pauses),
            ("down", "#555555", &self.downs),
        ] {
            for sp in spans {
                let (x0, x1) = (self.x(sp.from_ms), self.x(sp.to_ms));
                let _ = writeln!(
                    s,
                    r##"<rect class="{class}" data-process="{}" x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{fill}" fill-opacity="0.8"><title>{} ({} to {})</title></rect>"##,
                    escape(&self.lanes[sp.lane].0),
                    self.lane_top(sp.lane),
                    (x1 - x0).max(1.5),
                    self.lane_height(sp.lane),
                    escape(&sp.text),
                    seconds(sp.from_ms),
                    seconds(sp.to_ms)
                );
            }
        }
        for (class, spans) in [("key", &self.keys), ("belief", &self.beliefs)] {
            for sp in spans {
                let (x0, x1) = (self.x(sp.from_ms), self.x(sp.to_ms));
                let y = self.lane_top(sp.lane) + 24.0 + ROW * sp.row as f64;
                let w = (x1 - x0).max(1.5);
                let color = self.color(sp.owner);
                let _ = write!(
                    s,
                    r##"<g class="{class}" data-process="{}"><rect x="{x0:.1}" y="{y:.1}" width="{w:.1}" height="{:.1}" rx="2" fill="{color}" fill-opacity="{}"/>"##,
                    escape(&self.lanes[sp.lane].0),
                    ROW - 3.0,
                    if class == "key" { "0.55" } else { "0.9" },
                );
                if w > 60.0 {
                    let _ = write!(
                        s,
                        r##"<text x="{:.1}" y="{:.1}" fill="#fff" font-size="10">{}</text>"##,
                        x0 + 3.0,
                        y + 10.0,
                        escape(&sp.text)
                    );
                }
                let _ = writeln!(
                    s,
                    "<title>{} ({} to {})</title></g>",
                    escape(&sp.text),
                    seconds(sp.from_ms),
                    seconds(sp.to_ms)
                );
            }
        }
        self.draw_causes(&mut s);
        self.draw_arrows(&mut s);
        if let Some((t, oracle)) = &self.violation {
            let x = self.x(*t);
            let _ = writeln!(
                s,
                r##"<g class="violation"><line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#d00000" stroke-width="2"/><text x="{:.1}" y="{:.1}" fill="#d00000" font-weight="bold" text-anchor="end">{} violated at {}</text></g>"##,
                TOP - 8.0,
                self.lane_top(n),
                x - 4.0,
                TOP - 10.0,
                escape(oracle),
                seconds(*t)
            );
        }
        // Time axis.
        let axis_y = self.lane_top(n) + 4.0;
        let _ = writeln!(
            s,
            r##"<g class="axis"><line x1="{LEFT}" y1="{axis_y:.1}" x2="{:.1}" y2="{axis_y:.1}" stroke="#000"/>"##,
            LEFT + WIDTH
        );
        let step = nice_step(self.end_ms);
        let mut t = 0;
        while t <= self.end_ms {
            let x = self.x(t);
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{axis_y:.1}" x2="{x:.1}" y2="{:.1}" stroke="#000"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                axis_y + 5.0,
                axis_y + 17.0,
                axis_label(t, step)
            );
            t += step;
        }
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="#444">true time</text></g>"##,
            LEFT + WIDTH,
            axis_y + 32.0
        );
        s.push_str("</svg>\n");
        s
    }

    /// The legend under a chart: what each colour and mark means, and the causes.
    pub fn legend(&self) -> String {
        let mut s = String::from("<p class=\"legend\"><span><i class=\"sw\" style=\"background:#d8d8d8\"></i>paused</span><span><i class=\"sw\" style=\"background:#555\"></i>crashed</span><span><i class=\"sw\" style=\"background:#2f6fdf;opacity:.55\"></i>lock key on a Redis node (owner's colour)</span><span><i class=\"sw\" style=\"background:#2f6fdf\"></i>a client believes it holds the lock</span><span><i class=\"sw\" style=\"background:#ff0000;opacity:.3\"></i>two holders: mutual exclusion broken</span><span>arrows: messages, sent to delivered (thin and faint: changed no lock key, belief or account; red: the violation depends on it)</span></p>\n");
        if self.causes.count("diverged") > 0 {
            s.push_str("<p class=\"legend\"><span style=\"color:#d00000;font-weight:bold\">≠</span> real Redis answered otherwise than the model (the arrow says what it answered)</p>\n");
        }
        s.push_str(&self.cause_legend());
        s
    }

    /// A self-contained HTML page: the chart, a legend and the timeline.
    pub fn html(&self, entries: &[timeline::TimelineEntry], violated: Option<&str>) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>",
            escape(&self.title)
        );
        s.push_str("<style>body{font-family:sans-serif;margin:20px;color:#222}.legend span{display:inline-block;margin-right:18px}.sw{display:inline-block;width:14px;height:10px;margin-right:4px;vertical-align:middle}pre{background:#f6f6f6;padding:10px;font-size:12px;overflow-x:auto}.fault{color:#b00000}.note{color:#2a6}ul.causes li{font-family:monospace;white-space:pre-wrap}</style>\n</head>\n<body>\n");
        let _ = writeln!(
            s,
            "<h1>{}</h1>\n<p>{}</p>",
            escape(&self.title),
            escape(&clip(&self.subtitle, 170))
        );
        s.push_str(&self.svg());
        s.push_str(&self.legend());
        s.push_str("<h2>Timeline</h2>\n<pre class=\"timeline\">");
        for e in entries.iter().filter(|e| !e.label.starts_with("advance")) {
            let line = format!("t={:>8} ms  {}", e.at_ms, e.label);
            if e.fault {
                let _ = writeln!(s, "<span class=\"fault\">{}</span>", escape(&line));
            } else {
                let _ = writeln!(s, "{}", escape(&line));
            }
            for n in &e.notes {
                let _ = writeln!(
                    s,
                    "<span class=\"note\">{:>17}-&gt; {}</span>",
                    "",
                    escape(n)
                );
            }
        }
        if let Some(o) = violated {
            let _ = writeln!(s, "<b>{} violated</b>", escape(o));
        }
        s.push_str("</pre>\n</body>\n</html>\n");
        s
    }
}

/// A tick's label: seconds once ticks are a second apart or more, else milliseconds.
fn axis_label(t: u64, step: u64) -> String {
    if step >= 1_000 && t.is_multiple_of(1_000) {
        format!("{}s", t / 1_000)
    } else if step >= 1_000 {
        format!(
            "{}s",
            seconds(t).trim_end_matches(" s").trim_end_matches('0')
        )
    } else {
        format!("{t}ms")
    }
}

/// Cuts `text` to `max` characters, with an ellipsis.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut t: String = text.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

/// A tick step giving 5 to 12 ticks.
fn nice_step(end: u64) -> u64 {
    let mut step = 1u64;
    for m in [1, 2, 5].iter().cycle().scan(1u64, |base, &m| {
        let v = *base * m;
        if m == 5 {
            *base *= 10;
        }
        Some(v)
    }) {
        step = m;
        if end / m <= 12 {
            break;
        }
    }
    step
}
