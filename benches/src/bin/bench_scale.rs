//! The compiler-scale benchmark: `bench-scale run FILE STRATEGY [BUDGET_MS]`
//! measures one case (see `scale_driver.rs`); `bench-scale write-heavy COUNT
//! SEED FILE` writes the heavy-tailed random table as MiniMalloc CSV.
//! `scripts/bench_scale.sh` runs every case with this build and with 0.1.0.

#[path = "../scale_driver.rs"]
mod driver;

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => driver::run(&args[1..]),
        Some("write-heavy") => {
            let count: usize = args[1].parse().expect("count");
            let seed: u64 = args[2].parse().expect("seed");
            let tensors = aether_bench::workloads::heavy_tailed_tensors(count, seed);
            let mut out = std::io::BufWriter::new(
                std::fs::File::create(&args[3]).expect("creating the table"),
            );
            writeln!(out, "id,lower,upper,size").unwrap();
            for (i, t) in tensors.iter().enumerate() {
                writeln!(out, "{i},{},{},{}", t.first_use, t.last_use + 1, t.size).unwrap();
            }
        }
        _ => {
            eprintln!(
                "usage: bench-scale run FILE STRATEGY [BUDGET_MS] | write-heavy COUNT SEED FILE"
            );
            std::process::exit(2);
        }
    }
}
