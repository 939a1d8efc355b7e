//! `reach-cc`: drop-in C compiler that instruments for reach-native
//! (behaves as `reach-c++` when invoked through a name ending in `++`/`cxx`).

fn main() {
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    std::process::exit(reach_pass::wrapper::main_with(&argv, false));
}
