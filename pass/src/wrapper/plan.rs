//! Turning a parsed command line into the commands that build it.
//!
//! Per C/C++ source:
//!
//! ```text
//! clang -emit-llvm -c <front-end flags> -fPIE [-gline-tables-only] [-MF/-MT fixes] -x c a.c -o T/0-a.bc
//! reach-instrument --inline-guards --drop-dead-code T/0-a.bc -o T/0-a.inst.bc
//! clang -c <codegen flags> -fPIE -x ir -Xclang -disable-llvm-passes T/0-a.inst.bc -o a.o
//!                                               (or T/0-a.o before a link)
//! ```
//!
//! The front end already optimised the bitcode at the requested level and
//! `reach-instrument` inlined its guards, so the last step only generates
//! code: `-disable-llvm-passes` skips the optimisation pipeline, which would
//! run a second time on the instrumented module at about 1.7 times the cost
//! of code generation alone, for no measurable gain in speed. IR given as
//! input is optimised in that step as usual.
//!
//! then, without `-c`, one link: `clang <objects and link flags in order> -pie -pthread [-o out]`.

use super::args::{Invocation, Item, Lang, Mode, Role};
use std::path::{Path, PathBuf};

/// One command to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Run the compiler driver with these arguments.
    Clang(Vec<String>),
    /// Run `reach-instrument INPUT -o OUTPUT`.
    Instrument {
        /// Bitcode or IR to instrument.
        input: PathBuf,
        /// Instrumented bitcode.
        output: PathBuf,
    },
}

/// Why a command line cannot be planned.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PlanError {
    /// `-o` with `-c` and several sources.
    #[error("cannot specify -o with -c and several source files")]
    OutputWithSeveralSources,
}

/// The commands for `inv`, with temporary files under `tmp`.
pub fn plan(inv: &Invocation, tmp: &Path) -> Result<Vec<Step>, PlanError> {
    if inv.mode == Mode::PassThrough {
        return Ok(vec![Step::Clang(inv.original.clone())]);
    }
    let compiled: Vec<&Item> = inv
        .items
        .iter()
        .filter(|i| matches!(i, Item::Input { lang, .. } if *lang != Lang::Linker))
        .collect();
    if inv.mode == Mode::Compile && inv.output.is_some() && compiled.len() > 1 {
        return Err(PlanError::OutputWithSeveralSources);
    }
    let mut steps = Vec::new();
    let mut objects: Vec<String> = Vec::new();
    for (n, item) in compiled.iter().enumerate() {
        let Item::Input { path, lang, .. } = item else {
            continue;
        };
        let stem = stem(path);
        let object = match (inv.mode, &inv.output) {
            (Mode::Compile, Some(out)) => out.clone(),
            (Mode::Compile, None) => format!("{stem}.o"),
            _ => tmp
                .join(format!("{n}-{stem}.o"))
                .to_string_lossy()
                .into_owned(),
        };
        steps.extend(compile_one(
            inv,
            path,
            *lang,
            &object,
            &tmp.join(format!("{n}-{stem}")),
        ));
        objects.push(object);
    }
    if inv.mode == Mode::Link {
        steps.push(Step::Clang(link_args(inv, &objects)));
    }
    Ok(steps)
}

fn stem(path: &str) -> String {
    Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".to_string())
}

fn flags_with(inv: &Invocation, roles: &[Role]) -> Vec<String> {
    inv.items
        .iter()
        .filter_map(|i| match i {
            Item::Flag { words, role } if roles.contains(role) => Some(words.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

/// Position-independent code for the hooks' weak references (PIE link).
fn pic_flag(inv: &Invocation) -> &'static str {
    if inv.pic {
        "-fPIC"
    } else {
        "-fPIE"
    }
}

fn compile_one(
    inv: &Invocation,
    src: &str,
    lang: Lang,
    object: &str,
    tmp_base: &Path,
) -> Vec<Step> {
    let bc = tmp_base.with_extension("bc");
    let inst = tmp_base.with_extension("inst.bc");
    let codegen = |input: &Path, optimised: bool| {
        let mut a = flags_with(inv, &[Role::Both]);
        a.extend(["-Qunused-arguments", pic_flag(inv), "-c", "-x", "ir"].map(String::from));
        if optimised {
            a.extend(["-Xclang", "-disable-llvm-passes"].map(String::from));
        }
        a.push(input.to_string_lossy().into_owned());
        a.extend(["-o".to_string(), object.to_string()]);
        a
    };
    match lang {
        Lang::Ir => vec![
            Step::Instrument {
                input: PathBuf::from(src),
                output: inst.clone(),
            },
            Step::Clang(codegen(&inst, false)),
        ],
        Lang::Asm => {
            let mut a = flags_with(inv, &[Role::Compile, Role::Both]);
            a.extend([
                "-c".to_string(),
                src.to_string(),
                "-o".to_string(),
                object.to_string(),
            ]);
            vec![Step::Clang(a)]
        }
        _ => {
            let mut a = flags_with(inv, &[Role::Compile, Role::Both]);
            a.extend(["-Qunused-arguments", pic_flag(inv), "-emit-llvm", "-c"].map(String::from));
            if !inv.debug {
                a.push("-gline-tables-only".to_string());
            }
            if inv.dep_file {
                if !inv.dep_file_named {
                    let d = Path::new(object).with_extension("d");
                    a.extend(["-MF".to_string(), d.to_string_lossy().into_owned()]);
                }
                if !inv.dep_target_named {
                    a.extend(["-MT".to_string(), object.to_string()]);
                }
            }
            if let Some(x) = lang.x_name() {
                a.extend(["-x".to_string(), x.to_string()]);
            }
            a.extend([
                src.to_string(),
                "-o".to_string(),
                bc.to_string_lossy().into_owned(),
            ]);
            vec![
                Step::Clang(a),
                Step::Instrument {
                    input: bc,
                    output: inst.clone(),
                },
                Step::Clang(codegen(&inst, true)),
            ]
        }
    }
}

/// The link: flags and inputs in their original order, compiled inputs
/// replaced by their objects, linked as PIE with `-pthread`.
fn link_args(inv: &Invocation, objects: &[String]) -> Vec<String> {
    let mut a = Vec::new();
    let mut next_object = objects.iter();
    for item in &inv.items {
        match item {
            Item::Flag { words, role } => {
                let drop = *role == Role::Compile
                    || (!inv.shared && matches!(words[0].as_str(), "-no-pie" | "-nopie"));
                if !drop {
                    a.extend(words.iter().cloned());
                }
            }
            Item::Input { path, lang, .. } => {
                if *lang == Lang::Linker {
                    a.push(path.clone());
                } else if let Some(o) = next_object.next() {
                    a.push(o.clone());
                }
            }
        }
    }
    a.push("-Qunused-arguments".to_string());
    if !inv.shared {
        a.push("-pie".to_string());
    }
    a.push("-pthread".to_string());
    if let Some(o) = &inv.output {
        a.extend(["-o".to_string(), o.clone()]);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::super::args::parse;
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn compile_plan_has_three_steps_and_dependency_fixes() {
        let inv = parse(&s(&[
            "-O2", "-Iinc", "-MMD", "-c", "src/a.c", "-o", "obj/a.o",
        ]));
        let steps = plan(&inv, Path::new("/t")).expect("plan");
        assert_eq!(steps.len(), 3);
        let Step::Clang(front) = &steps[0] else {
            panic!("front end first")
        };
        let joined = front.join(" ");
        assert!(joined.contains("-O2 -Iinc -MMD"), "{joined}");
        assert!(joined.contains("-emit-llvm -c"), "{joined}");
        assert!(joined.contains("-MF obj/a.d -MT obj/a.o"), "{joined}");
        assert!(joined.ends_with("-x c src/a.c -o /t/0-a.bc"), "{joined}");
        assert_eq!(
            steps[1],
            Step::Instrument {
                input: "/t/0-a.bc".into(),
                output: "/t/0-a.inst.bc".into()
            }
        );
        let Step::Clang(back) = &steps[2] else {
            panic!("codegen last")
        };
        assert_eq!(
            back.join(" "),
            "-O2 -Qunused-arguments -fPIE -c -x ir -Xclang -disable-llvm-passes /t/0-a.inst.bc -o obj/a.o"
        );
    }

    #[test]
    fn link_plan_keeps_order_and_links_pie() {
        let inv = parse(&s(&["a.c", "lib.a", "-lm", "-no-pie", "-o", "prog"]));
        let steps = plan(&inv, Path::new("/t")).expect("plan");
        assert_eq!(steps.len(), 4);
        assert_eq!(
            steps[3],
            Step::Clang(s(&[
                "/t/0-a.o",
                "lib.a",
                "-lm",
                "-Qunused-arguments",
                "-pie",
                "-pthread",
                "-o",
                "prog"
            ]))
        );
    }

    #[test]
    fn several_sources_with_one_output_is_an_error() {
        let inv = parse(&s(&["-c", "a.c", "b.c", "-o", "x.o"]));
        assert_eq!(
            plan(&inv, Path::new("/t")),
            Err(PlanError::OutputWithSeveralSources)
        );
    }
}
