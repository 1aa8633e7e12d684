use lockcheck::scenario::builtin;
use lockcheck_madsim::scenario::run_seed;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let s = builtin::by_name(&args[0]).unwrap();
    for a in &args[1..] {
        let seed: u64 = a.parse().unwrap();
        let r = run_seed(&s, seed).unwrap();
        let faults: Vec<&String> = r.timeline.iter().filter(|l| l.contains("FAULT")).collect();
        println!("seed {seed} rate {} steps {} end {:?} viol {:?} faults {:?} hash {}", r.fault_per_mille, r.steps, r.ended, r.violated(), faults, r.timeline.join("\n").len());
    }
}
