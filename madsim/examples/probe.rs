use lockcheck::scenario::builtin;
use lockcheck_madsim::scenario::run_seed;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let s = builtin::by_name(&args[0]).unwrap();
    let wants: Vec<&str> = args[1].split('|').collect();
    let n: u64 = args[2].parse().unwrap();
    let mut shown = 0;
    for seed in 1..=n {
        let r = run_seed(&s, seed).unwrap();
        if wants.iter().all(|w| r.timeline.iter().any(|l| l.contains(w))) {
            println!("{r}");
            shown += 1;
            if shown == 2 { break; }
        }
    }
}
