fn main() {
    for _ in 0..3 {
        let order = std::thread::spawn(|| {
            let rt = madsim::runtime::Runtime::with_seed_and_config(1, madsim::Config::default());
            rt.block_on(async {
                let m: std::collections::HashMap<u32, ()> = (0..8).map(|i| (i, ())).collect();
                m.keys().copied().collect::<Vec<_>>()
            })
        }).join().unwrap();
        println!("{order:?}");
    }
}
