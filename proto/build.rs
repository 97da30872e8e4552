//! Generates the gRPC code from `proto/` with the vendored protoc, so no system protoc is needed.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let mut config = prost_build::Config::new();
    config.protoc_executable(protoc);
    tonic_prost_build::configure()
        .file_descriptor_set_path(out.join("hakase_descriptor.bin"))
        .compile_with_config(
            config,
            &[
                "proto/hakase/v1/cluster.proto",
                "proto/hakase/v1/query.proto",
            ],
            &["proto"],
        )?;
    println!("cargo:rerun-if-changed=proto");
    Ok(())
}
