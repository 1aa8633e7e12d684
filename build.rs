//! Builds the clock library that `lockcheck reproduce` preloads into `redis-server` (see
//! `src/reproduce/clock_shim.c`): a shared object in `OUT_DIR`, embedded into the binary.

use std::path::PathBuf;

fn main() {
    let source = "src/reproduce/clock_shim.c";
    println!("cargo:rerun-if-changed={source}");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let library = out.join("libclockshim.so");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        // The library interposes glibc's clocks: Linux only; elsewhere `reproduce` runs at
        // x1 without clock steps.
        std::fs::write(&library, b"").expect("write an empty clock library");
        return;
    }
    let compiler = cc::Build::new().get_compiler();
    let status = compiler
        .to_command()
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&library)
        .arg(source)
        .status()
        .expect("run the C compiler for the clock library");
    assert!(status.success(), "the clock library did not compile");
}
