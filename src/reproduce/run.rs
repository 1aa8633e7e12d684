//! The executor: one real run of a plan. It starts the servers, opens one connection per
//! (client, server), then acts at each step's virtual time (sleep, then spin), reads every
//! reply the model delivers on the connection it was asked on (replies the model lost are
//! read and dropped), compares it, and stops at the first reply that differs. The servers are
//! gone when it returns, whatever happened.

use super::clock::{self, ClockFiles, VirtualClock};
use super::conns::Connections;
use super::matcher::{compare, timing_bound_ms, tolerance_ms, Match};
use super::plan::{Plan, PlannedStep, RealAction};
use super::sentinel::{answered_port, ask_master_argv};
use super::server::{ServerOptions, Supervisor};
use super::verdict::{reply_text, StepRecord};
use super::ReproduceError;
use lockcheck_model::redis::Reply;
use lockcheck_sim::world::ProcessId;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Real time the servers get between the last connection and virtual 0.
const WARMUP_MS: i64 = 300;

static RUNS: AtomicUsize = AtomicUsize::new(0);
/// The request id of a question to Sentinel (the model's carry none).
const ASK_ID: u32 = u32::MAX;
/// How long Sentinel may take (virtual ms) past the model's instant to answer as the model.
const SENTINEL_WINDOW_MS: u64 = 5_000;

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub speed: f64,
    pub server: ServerOptions,
    /// Stalls the replayer this long (real ms) when trace step `.0` is due: a loaded machine, on
    /// purpose (tests of the INCONCLUSIVE verdict).
    pub stall_before: Option<(usize, u64)>,
}

/// What one run did.
pub struct RunRecord {
    pub records: Vec<StepRecord>,
    /// The real reply of each trace step (0-based) that delivered one.
    pub replies: BTreeMap<usize, Reply>,
    /// Why the run ended before its last step, if it did.
    pub stopped: Option<String>,
    /// Every server PID the run started (all killed by now).
    pub pids: Vec<u32>,
}

struct Runner<'a> {
    plan: &'a Plan,
    options: &'a RunOptions,
    supervisor: Supervisor,
    conns: Connections,
    pids: Vec<u32>,
    worst_late_ms: f64,
    /// How far the plan has moved: the waits for Sentinel to act as the model's did.
    shift_ms: u64,
}

/// Runs `plan` once on fresh servers; `slack` is each planned step's.
pub fn run_once(
    plan: &Plan,
    slack: &[Option<u64>],
    options: &RunOptions,
) -> Result<RunRecord, ReproduceError> {
    let n = RUNS.fetch_add(1, Ordering::SeqCst);
    let root: PathBuf =
        std::env::temp_dir().join(format!("lockcheck-reproduce-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&root)
        .map_err(|e| ReproduceError::environment(format!("{}: {e}", root.display())))?;
    let mut vclock = VirtualClock::new(options.speed);
    let files = if vclock.scaled() || plan.steps_clocks {
        Some(
            ClockFiles::install(&root, vclock)
                .map_err(|e| ReproduceError::environment(format!("{}: {e}", root.display())))?,
        )
    } else {
        None
    };
    let supervisor = Supervisor::start(
        &plan.nodes,
        &plan.sentinels,
        &options.server,
        root,
        files.as_ref(),
    )?;
    let mut runner = Runner {
        plan,
        options,
        pids: supervisor.pids(),
        supervisor,
        conns: Connections::default(),
        worst_late_ms: 0.0,
        shift_ms: 0,
    };
    for s in &plan.steps {
        if let RealAction::Send {
            client,
            node,
            subscriber,
            ..
        } = s.action
        {
            let port = runner.supervisor.port(node);
            runner
                .conns
                .open((client, node, subscriber), port)
                .map_err(ReproduceError::environment)?;
        }
    }
    for s in &plan.steps {
        if let RealAction::AskMaster { client, sentinel } = s.action {
            let port = runner.supervisor.port(sentinel);
            runner
                .conns
                .open((client, sentinel, false), port)
                .map_err(ReproduceError::environment)?;
        }
    }
    vclock.start(WARMUP_MS);
    let (records, replies, stopped) = runner.steps(&vclock, slack);
    Ok(RunRecord {
        records,
        replies,
        stopped,
        pids: runner.pids,
    })
}

impl Runner<'_> {
    fn steps(
        &mut self,
        vclock: &VirtualClock,
        slack: &[Option<u64>],
    ) -> (Vec<StepRecord>, BTreeMap<usize, Reply>, Option<String>) {
        let mut records = Vec::new();
        let mut replies = BTreeMap::new();
        for (i, s) in self.plan.steps.iter().enumerate() {
            let mut record = StepRecord {
                step: s.step,
                label: s.label.clone(),
                model_ms: s.at_ms,
                real_ms: None,
                late_ms: 0.0,
                slack_ms: slack[i],
                expected: None,
                actual: None,
                matched: None,
            };
            if super::interrupted() {
                return (
                    records,
                    replies,
                    Some(format!(
                        "interrupted by {}",
                        crate::interrupt::signal_name()
                    )),
                );
            }
            if s.action == RealAction::Note {
                records.push(record);
                continue;
            }
            let at_ms = s.at_ms + s.stretch_ms + self.shift_ms;
            if !vclock.sleep_until(at_ms) {
                let why = format!("interrupted by {}", crate::interrupt::signal_name());
                return (records, replies, Some(why));
            }
            if let Some((step, stall_ms)) = self.options.stall_before {
                if step == s.step
                    && !matches!(
                        s.action,
                        RealAction::Resume { .. } | RealAction::Restart { .. }
                    )
                {
                    std::thread::sleep(Duration::from_millis(stall_ms));
                }
            }
            let real_ms = vclock.now_ms();
            record.real_ms = Some(real_ms);
            record.late_ms = (real_ms - at_ms as f64).max(0.0);
            self.worst_late_ms = self.worst_late_ms.max(record.late_ms);
            if let Err(why) = self.act(s, &mut record, &mut replies, vclock) {
                records.push(record);
                return (records, replies, Some(why));
            }
            let differs = record.matched.is_some_and(|m| !m.agrees());
            records.push(record);
            if super::interrupted() {
                let why = format!("interrupted by {}", crate::interrupt::signal_name());
                return (records, replies, Some(why));
            }
            if differs {
                break;
            }
        }
        (records, replies, None)
    }

    /// Does `s`; an error is a reason the run cannot go on.
    fn act(
        &mut self,
        s: &PlannedStep,
        record: &mut StepRecord,
        replies: &mut BTreeMap<usize, Reply>,
        vclock: &VirtualClock,
    ) -> Result<(), String> {
        match &s.action {
            RealAction::AskMaster { client, sentinel } => {
                let key = (*client, *sentinel, false);
                self.conns.open(key, self.supervisor.port(*sentinel))?;
                self.conns.send(key, ASK_ID, &ask_master_argv())?;
            }
            RealAction::ExpectMaster {
                client,
                sentinel,
                master,
            } => self.expect_master((*client, *sentinel, false), *master, record, vclock)?,
            RealAction::Send {
                client,
                node,
                id,
                argv,
                subscriber,
            } => {
                self.settle(*node, Some(*client));
                let key = (*client, *node, *subscriber);
                self.conns.open(key, self.supervisor.port(*node))?;
                if let Err(e) = self.conns.send(key, *id, argv) {
                    record.actual = Some(format!("({e})"));
                }
            }
            RealAction::Expect {
                client,
                node,
                id,
                reply,
                ttl_valued,
                subscriber,
            } => {
                let actual = self.conns.reply((*client, *node, *subscriber), *id);
                self.compare(record, reply, actual, *ttl_valued, s.step, replies);
            }
            RealAction::ExpectPush { client, node, push } => {
                let actual = self.conns.push(*client, *node);
                self.compare(record, push, actual, false, s.step, replies);
            }
            RealAction::Note => {}
            fault => self.fault(fault)?,
        }
        Ok(())
    }

    /// A fault of a server: pause, resume, crash, restart, clock step, cut.
    fn fault(&mut self, action: &RealAction) -> Result<(), String> {
        match action {
            RealAction::Pause { node } => {
                self.settle(*node, None);
                self.supervisor.pause(*node);
            }
            RealAction::Resume { node } => self.supervisor.resume(*node),
            RealAction::Crash { node } => {
                self.settle(*node, None);
                self.supervisor.crash(*node);
                self.conns.close(*node);
            }
            RealAction::Restart { node } => {
                self.supervisor.restart(*node).map_err(|e| e.message)?;
                self.pids = merge(&self.pids, &self.supervisor.pids());
            }
            RealAction::ClockStep { node, delta_ms } => {
                self.settle(*node, None);
                let file = self
                    .supervisor
                    .clock_file(*node)
                    .ok_or("the node has no clock file")?;
                clock::step(file, *delta_ms).map_err(|e| format!("{}: {e}", file.display()))?;
            }
            RealAction::Cut { links } => {
                for (a, b) in links {
                    self.supervisor.cut(*a, *b);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Reads Sentinel's answer; while it names another master than the model's, asks again
    /// until the window passes, and moves the rest of the plan by the wait.
    fn expect_master(
        &mut self,
        key: super::conns::Key,
        master: usize,
        record: &mut StepRecord,
        vclock: &VirtualClock,
    ) -> Result<(), String> {
        let name = |sup: &Supervisor, n: Option<usize>| match n {
            Some(n) => format!("master is {}", sup.name(n)),
            None => "master unknown".to_string(),
        };
        record.expected = Some(name(&self.supervisor, Some(master)));
        let asked_ms = vclock.now_ms();
        let mut answer = self.conns.reply(key, ASK_ID)?;
        let until_ms = asked_ms + SENTINEL_WINDOW_MS as f64;
        loop {
            let named = answered_port(&answer).and_then(|p| self.supervisor.node_at_port(p));
            if named == Some(master) || vclock.now_ms() > until_ms {
                let waited_ms = (vclock.now_ms() - asked_ms).max(0.0) as u64;
                record.matched = Some(if named == Some(master) {
                    Match::Exact
                } else {
                    Match::Differs
                });
                record.actual = Some(match waited_ms {
                    0..=9 => name(&self.supervisor, named),
                    w => format!("{} (after {w} ms)", name(&self.supervisor, named)),
                });
                if named == Some(master) && waited_ms > 9 {
                    self.shift_ms += waited_ms;
                }
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(5));
            self.conns.send(key, ASK_ID, &ask_master_argv())?;
            answer = self.conns.reply(key, ASK_ID)?;
        }
    }

    /// Records the real reply of trace step `step` and how it compares with the model's.
    fn compare(
        &self,
        record: &mut StepRecord,
        expected: &Reply,
        actual: Result<Reply, String>,
        ttl_valued: bool,
        step: usize,
        replies: &mut BTreeMap<usize, Reply>,
    ) {
        record.expected = Some(reply_text(expected));
        let tolerance = tolerance_ms(self.options.speed, self.worst_late_ms);
        record.matched = Some(match &actual {
            Ok(real) => compare(
                expected,
                real,
                ttl_valued,
                tolerance,
                timing_bound_ms(self.options.speed),
            ),
            Err(_) => Match::Differs,
        });
        // A time to live within the tolerance is the model's, read a moment off: the
        // observed history keeps the model's value (its clients would time otherwise).
        let exact = !matches!(record.matched, Some(Match::Within { .. }));
        record.actual = Some(match actual {
            Ok(real) => {
                let text = reply_text(&real);
                if exact {
                    replies.insert(step - 1, real);
                }
                text
            }
            Err(why) => format!("({why})"),
        });
    }

    /// Reads ahead the replies on a running node (see `conns.rs`).
    fn settle(&mut self, node: usize, except: Option<ProcessId>) {
        if !self.supervisor.is_paused(node) {
            self.conns.settle(node, except);
        }
    }
}

fn merge(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut all: Vec<u32> = a.iter().chain(b).copied().collect();
    all.sort_unstable();
    all.dedup();
    all
}
