//! `reach-rustc`: a `rustc` (and cargo `RUSTC_WRAPPER`) that builds
//! instrumented programs for reach-native.

fn main() {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    std::process::exit(reach_pass::wrapper::rustc::main_with(&argv));
}
