use lockcheck::scenario::builtin;
use lockcheck_madsim::scenario::run_seed;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let s = builtin::by_name(&args[0]).unwrap();
    let n: u64 = args[1].parse().unwrap();
    let mut counts = std::collections::BTreeMap::new();
    for seed in 1..=n {
        let r = run_seed(&s, seed).unwrap();
        let sig: Vec<String> = r.timeline.iter().filter(|l| l.contains("FAULT")).map(|l| l.trim().to_string()).collect();
        *counts.entry(sig.join(" ; ")).or_insert(0) += 1;
    }
    let mut v: Vec<_> = counts.into_iter().collect();
    v.sort_by_key(|(_, c)| std::cmp::Reverse(*c));
    for (k, c) in v.iter().filter(|(k,_)| k.contains("10002 ms  FAULT pause redis for 200 ms ; t=")) { println!("{c:6} {k}"); }
}
