//! A sweep of two parameters as a compact grid for the terminal: one character per point
//! (`X` violated, `.` safe, `?` no verdict, blank not checked), the second parameter
//! growing upwards as in the heat map, instead of one table row per point.

use super::heatmap::{Sweep, Verdict};
use crate::scenario::duration;
use std::fmt::Write;

/// Points above which a two-parameter sweep prints the grid instead of the table.
pub(crate) const COMPACT_ABOVE_POINTS: usize = 40;

fn fmt(ms: u64) -> String {
    duration::format(ms as i64)
}

impl Sweep {
    /// Whether the terminal gets the compact grid rather than the table.
    pub fn prefers_compact(&self) -> bool {
        self.params.len() == 2 && self.cells.len() > COMPACT_ABOVE_POINTS
    }

    /// The compact grid (two parameters; the table otherwise).
    pub fn compact(&self) -> String {
        let [(x_name, xs), (y_name, ys)] = &self.params[..] else {
            return self.table();
        };
        let width = ys.iter().map(|y| fmt(*y).len()).max().unwrap_or(1);
        let mut s =
            format!("{y_name} (rows) by {x_name} (columns): X violated, . safe, ? no verdict\n");
        for y in ys.iter().rev() {
            let _ = write!(s, "{:>width$} ", fmt(*y));
            for x in xs {
                let cell = self.cells.iter().find(|c| c.values_ms[..] == [*x, *y]);
                s.push(match cell.map(|c| c.verdict) {
                    Some(Verdict::Violated) => 'X',
                    Some(Verdict::Safe) => '.',
                    Some(Verdict::Unknown) => '?',
                    None => ' ',
                });
            }
            s.push('\n');
        }
        let (first, last) = (xs.first().copied(), xs.last().copied());
        if let (Some(first), Some(last)) = (first, last) {
            let _ = writeln!(
                s,
                "{:>width$} {x_name} from {} to {} ({} values)",
                "",
                fmt(first),
                fmt(last),
                xs.len()
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::report::heatmap::{Cell, Sweep, Verdict};

    #[test]
    fn one_character_per_point_second_parameter_upwards() {
        let (xs, ys) = (vec![1_000, 2_000, 3_000], vec![0, 5_000]);
        let mut cells = Vec::new();
        for &y in &ys {
            for &x in &xs {
                let verdict = if x + y > 4_000 {
                    Verdict::Violated
                } else {
                    Verdict::Safe
                };
                cells.push(Cell {
                    values_ms: vec![x, y],
                    verdict,
                    oracle: None,
                    states: 1,
                    trace: None,
                    chart: None,
                    faults: Vec::new(),
                });
            }
        }
        let sweep = Sweep {
            scenario: "s".into(),
            params: vec![("ttl".into(), xs), ("pause".into(), ys)],
            cells,
        };
        let grid = sweep.compact();
        let rows: Vec<&str> = grid.lines().collect();
        assert_eq!(rows[1], "5s XXX");
        assert_eq!(rows[2], "0s ...");
        assert!(rows[3].contains("ttl from 1s to 3s (3 values)"), "{grid}");
    }
}
