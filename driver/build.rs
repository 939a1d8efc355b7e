//! Records the version of the LLVM that `reach-cc` and `reach-rustc`
//! instrument with (the one `llvm-config` of LLVM 22 reports), for
//! `reach-native --version`.

use std::process::Command;

fn main() {
    let candidates = [
        "llvm-config-22",
        "/usr/lib/llvm-22/bin/llvm-config",
        "llvm-config",
    ];
    let version = candidates
        .iter()
        .find_map(|tool| {
            let output = Command::new(tool).arg("--version").output().ok()?;
            let text = String::from_utf8(output.stdout).ok()?;
            output.status.success().then(|| text.trim().to_string())
        })
        .unwrap_or_else(|| "22 (llvm-config not found at build time)".to_string());
    println!("cargo:rustc-env=BUILT_WITH_LLVM_VERSION={version}");
    println!("cargo:rerun-if-env-changed=PATH");
}
