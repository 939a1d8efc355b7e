//! Builds the corpus programs (and with `--examples` every `c-examples/`
//! program) with the compiler wrappers and prints one `NAME<TAB>PATH` line
//! per executable, for scripts such as `scripts/soak.sh`.

use reach_tests::corpus;
use std::process::ExitCode;

fn main() -> ExitCode {
    let examples = std::env::args().skip(1).any(|a| a == "--examples");
    if examples {
        let mut files: Vec<String> = std::fs::read_dir(reach_tests::root().join("c-examples"))
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.ends_with(".c") || n.ends_with(".cpp"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        for file in files {
            let path = reach_tests::build_example(&file);
            println!("{file}\t{}", path.display());
        }
    }
    match corpus::build_libraries() {
        Ok(libraries) => {
            for lib in libraries {
                if !lib.build_time.is_zero() {
                    eprintln!(
                        "corpus-build: compiled {} in {:.1} s",
                        lib.name,
                        lib.build_time.as_secs_f64()
                    );
                }
            }
        }
        Err(e) => {
            eprintln!("corpus-build: {e}");
            return ExitCode::from(1);
        }
    }
    for source in corpus::program_sources() {
        let Some(name) = source.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        match corpus::build_program(name) {
            Ok(path) => println!("corpus/{name}\t{}", path.display()),
            Err(e) => {
                eprintln!("corpus-build: {e}");
                return ExitCode::from(1);
            }
        }
    }
    ExitCode::SUCCESS
}
