//! Gathers the shipped rankings' chunk files (`data/wordle/rankings/MODE/NN.tsv`, written one
//! by one by `scripts/rank-wordle`) into one embedded table per mode, so a chunk committed
//! later needs no code change.

use std::fs;
use std::path::Path;

fn main() {
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let root = Path::new("data/wordle/rankings");
    println!("cargo:rerun-if-changed={}", root.display());
    for mode in ["normal", "hard"] {
        let dir = root.join(mode);
        let mut chunks: Vec<_> = fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| {
                        p.extension().is_some_and(|x| x == "tsv")
                            && p.file_stem().is_some_and(|s| s != "PROVENANCE")
                    })
                    .collect()
            })
            .unwrap_or_default();
        chunks.sort();
        let mut values = String::new();
        for chunk in &chunks {
            values.push_str(&fs::read_to_string(chunk).expect("a readable ranking chunk"));
        }
        let provenance = fs::read_to_string(dir.join("PROVENANCE.tsv")).unwrap_or_default();
        let out = Path::new(&out_dir);
        fs::write(out.join(format!("rankings-{mode}.tsv")), values).expect("OUT_DIR writable");
        fs::write(out.join(format!("provenance-{mode}.tsv")), provenance)
            .expect("OUT_DIR writable");
    }
}
