//! Builds the clock library that `lockcheck reproduce` preloads into `redis-server` (see
//! `src/reproduce/clock_shim.c`): a shared object in `OUT_DIR`, embedded into the binary.

use std::path::PathBuf;

fn main() {
    let source = "src/reproduce/clock_shim.c";
    println!("cargo:rerun-if-changed={source}");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let library = out.join("libclockshim.so");
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
