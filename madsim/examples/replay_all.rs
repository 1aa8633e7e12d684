use lockcheck::scenario::builtin;
use lockcheck_madsim::scenario::runs_with_seed;
fn main() {
    let seed: u64 = std::env::args().nth(1).map_or(7, |s| s.parse().unwrap());
    let runs: u32 = std::env::args().nth(2).map_or(100, |s| s.parse().unwrap());
    for s in builtin::all() {
        let world = s.build().unwrap();
        let reports = runs_with_seed(&s, seed, runs).unwrap();
        let (mut refused, mut differ) = (0, 0);
        for r in &reports {
            match lockcheck_sim::replay(&world, &r.trace) {
                Ok(rep) => {
                    let k = rep.report.first_violation().map(|(n, _)| n.to_string());
                    if k.as_deref() != r.violated() {
                        differ += 1;
                        if differ == 1 {
                            println!(
                                "  differ run {}: madsim {:?} kernel {:?}",
                                r.run,
                                r.violated(),
                                k
                            );
                        }
                    }
                }
                Err(e) => {
                    refused += 1;
                    if refused == 1 {
                        println!("  refused run {}: {e}", r.run);
                    }
                }
            }
        }
        println!(
            "{:40} runs {} refused {} verdict differs {}",
            s.name,
            reports.len(),
            refused,
            differ
        );
    }
}
