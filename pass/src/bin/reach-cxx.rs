//! `reach-cxx`: drop-in C++ compiler that instruments for reach-native.

fn main() {
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    std::process::exit(reach_pass::wrapper::main_with(&argv, true));
}
