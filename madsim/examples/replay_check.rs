use lockcheck::scenario::builtin;
use lockcheck_madsim::scenario::runs_with_seed;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let s = builtin::by_name(&args[0]).unwrap();
    let run: usize = args[1].parse().unwrap();
    let world = s.build().unwrap();
    let reports = runs_with_seed(&s, 7, run as u32 + 1).unwrap();
    let r = &reports[run];
    if let Err(e) = lockcheck_sim::replay(&world, &r.trace) {
        println!("{e}");
    }
    for (i, st) in r.trace.steps.iter().enumerate() {
        println!("{i:4} {:>8} {}", st.at_ms, st.label);
    }
}
