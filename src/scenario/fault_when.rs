//! When a fault of the envelope may happen: `when = { at_ms = "9.5s" }` pins it to an
//! instant, `when = { from_ms = "10s", to_ms = "30s" }` bounds it to a window (either end
//! may be left out), and `after = "p1 acquires"` counts either from a moment of a client's
//! rounds (`lockcheck_model::lock::ClientEvent`: starts, acquires, works, releases, is done,
//! gives up; the first time it happens) instead of from the start of the run. Without
//! `when` a fault may happen at any event, as before. The kernel's side is
//! `lockcheck_sim::world::FaultWindow` and `Anchor`.

use super::build::{error, Names, ScenarioError};
use super::duration;
use crate::text::clip;
use lockcheck_model::lock::ClientEvent;
use lockcheck_model::process::ProcessState;
use lockcheck_sim::world::{Anchor, FaultWindow};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A fault's timing in a scenario file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultWhen {
    /// Exactly this long after the start of the run (or after `after`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "duration::opt_ms"
    )]
    pub at_ms: Option<u64>,
    /// Not before this long after the start (or after `after`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "duration::opt_ms"
    )]
    pub from_ms: Option<u64>,
    /// Not after this long after the start (or after `after`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "duration::opt_ms"
    )]
    pub to_ms: Option<u64>,
    /// Counted from a moment of a client's rounds: `"<client> <event>"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

impl FaultWhen {
    /// Whether it says nothing: the fault may happen at any event.
    pub fn is_any_time(&self) -> bool {
        *self == FaultWhen::default()
    }
}

/// The anchors a scenario's fault windows count from, one per distinct `after`.
#[derive(Default)]
pub(super) struct Anchors {
    pub(super) list: Vec<(String, Anchor<ProcessState>)>,
}

impl Anchors {
    /// The kernel's window for `when` (at `field`, e.g. `faults.pauses[0].when`), `None`
    /// when it says nothing; `clients` are the names of the scenario's lock clients.
    pub(super) fn window(
        &mut self,
        when: &FaultWhen,
        field: &str,
        names: &Names,
        clients: &[&str],
    ) -> Result<Option<FaultWindow>, ScenarioError> {
        if when.is_any_time() {
            return Ok(None);
        }
        let window = match (when.at_ms, when.from_ms, when.to_ms) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return Err(error(
                    format!("{field}.at_ms"),
                    "`at_ms` pins the fault to one instant: give either it or `from_ms`/`to_ms`",
                ))
            }
            (Some(at), None, None) => FaultWindow::at(at),
            (None, from, to) => {
                let from = from.unwrap_or(0);
                if let Some(to) = to.filter(|&to| to < from) {
                    return Err(error(
                        format!("{field}.to_ms"),
                        format!(
                            "the window ends ({}) before it begins ({}): `to_ms` must not be less than `from_ms`",
                            duration::format(to as i64),
                            duration::format(from as i64)
                        ),
                    ));
                }
                FaultWindow::between(from, to)
            }
        };
        match &when.after {
            None => Ok(Some(window)),
            Some(after) => {
                let anchor = self.anchor(after, &format!("{field}.after"), names, clients)?;
                Ok(Some(window.after_anchor(anchor)))
            }
        }
    }

    /// The anchor `after` names (added the first time), by its position.
    fn anchor(
        &mut self,
        after: &str,
        field: &str,
        names: &Names,
        clients: &[&str],
    ) -> Result<usize, ScenarioError> {
        let (client, event) = parse_after(after, clients).map_err(|why| error(field, why))?;
        let name = format!("{client} {}", event.words());
        if let Some(i) = self.list.iter().position(|(n, _)| *n == name) {
            return Ok(i);
        }
        let process = names.id(client, field)?;
        let holds = move |s: &ProcessState| s.as_client().is_some_and(|c| event.holds(c));
        self.list.push((
            name.clone(),
            Anchor {
                name,
                process,
                holds: Arc::new(holds),
            },
        ));
        Ok(self.list.len() - 1)
    }
}

/// `"p1 acquires"` as (client, event); the client is the longest client name `after`
/// begins with, followed by a space.
fn parse_after<'c>(after: &str, clients: &[&'c str]) -> Result<(&'c str, ClientEvent), String> {
    let forms = || {
        let words: Vec<&str> = ClientEvent::ALL.iter().map(|(_, w)| *w).collect();
        words.join(", ")
    };
    let text = after.trim();
    let client = clients
        .iter()
        .filter(|c| {
            text.strip_prefix(**c)
                .is_some_and(|rest| rest.starts_with(char::is_whitespace))
        })
        .max_by_key(|c| c.len());
    let Some(&client) = client else {
        return Err(format!(
            "`{}` does not begin with a client's name: write \"<client> <event>\", e.g. \"{} acquires\" (clients: {}; events: {})",
            clip(after, 60),
            clients.first().unwrap_or(&"p1"),
            clients.join(", "),
            forms()
        ));
    };
    let words = &text[client.len()..];
    ClientEvent::named(words)
        .map(|e| (client, e))
        .ok_or_else(|| {
            format!(
                "`{}` is not an event of a client: one of {}",
                clip(words.trim(), 40),
                forms()
            )
        })
}
