//! The explorer: one expansion, one admission, one core loop; engines that schedule them.
//!
//! A search pops an entry from its frontier, computes its expansion (whether a bound cuts
//! it off, its enabled actions, a persistent subset under partial-order reduction, its
//! successors with their keys: `expand`), and admits the successors (deduplication by key,
//! the states met, properties, the path log: `admit`), pushing the new ones. Depth-first,
//! breadth-first, random walks, replay, shrinking candidates and scripts differ only in the
//! frontier. Limits are looked at between expansions and end the search with a named
//! outcome; an interrupt flag set from outside (a signal handler) ends it at the next one.
//!
//! What runs is decided before the search starts, by [`Plan::decide`](crate::Plan::decide):
//! the core loop on the caller's thread (`search`), breadth-first batches whose expansions
//! and deduplication are spread over threads (`batches`), breadth-first search whose
//! expansions are prepared ahead on worker threads (`lookahead`, where a reduction needs the
//! order of expansions), or waves of random walks on threads (`walks`). Every engine runs
//! the same expansion and admission and gives the results of the core loop on one thread.

mod admit;
mod batches;
mod expand;
mod key;
mod lookahead;
mod met;
mod reduction;
mod resources;
mod search;
mod shard;
mod store;
mod tuner;
mod walks;
mod watch;

pub use shard::{bfs_order, choice_path, explore_shard, union_len, ShardPlan, ShardReport, Split};
pub use walks::explore_walks;

use crate::frontier::{BreadthFirst, Frontier};
use crate::model::Model;
use crate::options::Options;
use crate::plan::{Engine, Plan, Strategy};
use crate::report::Report;
use crate::visited::VisitedSet;
use lookahead::PrepareMany;
use search::Search;
use std::convert::Infallible;

/// A model a search may share between its threads, with its states and actions.
pub trait ThreadSafe: Model<State: Send + Sync, Action: Send + Sync> + Sync {}

impl<M: Model<State: Send + Sync, Action: Send + Sync> + Sync> ThreadSafe for M {}

/// Explores `model` with `frontier` under `options` on the caller's thread: exhaustive
/// search and random walks, whose frontiers cannot fail.
pub fn explore<M: Model, F: Frontier<M, Error = Infallible>>(
    model: &M,
    frontier: &mut F,
    options: Options,
) -> Report<M> {
    match try_explore(model, frontier, options) {
        Ok(report) => report,
        Err(never) => match never {},
    }
}

/// Explores `model` with a frontier that can refuse to go on (replay meeting a choice the
/// model does not offer, a scripted fault not enabled when due): its error, or the report.
pub fn try_explore<M: Model, F: Frontier<M>>(
    model: &M,
    frontier: &mut F,
    options: Options,
) -> Result<Report<M>, F::Error> {
    let strategy = Strategy::Frontier {
        prunes: frontier.prunes_visited(),
    };
    let plan = Plan::decide(model, &options, strategy);
    options.hooks.begin();
    run(model, plan, frontier, options, None).map(|(report, _visited)| report)
}

/// Explores `model` breadth-first on `options.parallelism.threads` threads, with the report
/// of `explore` with a `BreadthFirst` frontier whatever their number: the engine is the one
/// the plan decides (the core loop, batches, or expansions prepared ahead).
pub fn explore_parallel<M>(model: &M, options: Options) -> Report<M>
where
    M: ThreadSafe,
{
    let plan = Plan::decide(model, &options, Strategy::BreadthFirst);
    options.hooks.begin();
    match plan.engine.clone() {
        Engine::Batches { threads, .. } => batches::explore_batches(model, plan, options, threads),
        Engine::Lookahead { threads, .. } => {
            lookahead::explore_lookahead(model, plan, options, threads)
        }
        Engine::OneThread { .. } | Engine::Walks { .. } => {
            let frontier = &mut BreadthFirst::default();
            match run(model, plan, frontier, options, None) {
                Ok((report, _visited)) => report,
                Err(never) => match never {},
            }
        }
    }
}

/// Runs `plan` with `frontier` on the core loop (with `many`, its expansions prepared
/// ahead on other threads): the report, with the states it visited.
fn run<'m, M: Model, F: Frontier<M>>(
    model: &'m M,
    plan: Plan,
    frontier: &mut F,
    mut options: Options,
    many: Option<&'m dyn PrepareMany<M>>,
) -> Result<(Report<M>, VisitedSet), F::Error> {
    let mut search = Search::new(model, plan, &options, 1);
    if let Some(many) = many {
        assert_eq!(
            many.mode(),
            (search.plan.partial_order.is_on(), search.keys),
            "internal bug: the workers prepare expansions under other reductions than the search"
        );
    }
    search.many = search.tuning.adopt(many, &options);
    let outcome = search.run(frontier, &mut options)?;
    assert!(
        !matches!(
            outcome,
            crate::Outcome::Complete | crate::Outcome::Bounded { .. }
        ) || frontier.is_empty(),
        "internal bug: the search ended as {outcome} with states left to expand"
    );
    let waiting = frontier.len();
    let (report, visited) = search.finish(outcome, waiting, &options);
    Ok((report, visited.into_single()))
}
