//! Parsing a cc/c++ command line into flags (by the step they belong to)
//! and inputs (by language).
//!
//! ```text
//! -O2 -Iinc -c a.c -o a.o        ->  mode Compile, flags [Both -O2, Compile -Iinc], inputs [a.c (C)], output a.o
//! main.o libq.a -lm -o prog      ->  mode Link, inputs [main.o, libq.a (linker inputs)], flags [Link -lm]
//! -E a.c                         ->  mode PassThrough
//! ```

/// Language of an input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// C source (`.c`, `-x c`).
    C,
    /// C++ source (`.cc`, `.cpp`, `.cxx`, `.C`, `.c++`, `-x c++`).
    Cxx,
    /// Preprocessed C (`.i`).
    CPreprocessed,
    /// Preprocessed C++ (`.ii`).
    CxxPreprocessed,
    /// Assembly (`.s`, `.S`): compiled without instrumentation.
    Asm,
    /// LLVM IR or bitcode (`.ll`, `.bc`): instrumented without a front end.
    Ir,
    /// Anything else: objects, archives, shared libraries, linker scripts.
    Linker,
}

impl Lang {
    /// The `-x` name clang knows this language by.
    pub fn x_name(self) -> Option<&'static str> {
        match self {
            Lang::C => Some("c"),
            Lang::Cxx => Some("c++"),
            Lang::CPreprocessed => Some("cpp-output"),
            Lang::CxxPreprocessed => Some("c++-cpp-output"),
            Lang::Asm => Some("assembler-with-cpp"),
            Lang::Ir => Some("ir"),
            Lang::Linker => None,
        }
    }

    /// True for C and C++ sources (the inputs the front end compiles and the pass instruments).
    pub fn is_source(self) -> bool {
        matches!(
            self,
            Lang::C | Lang::Cxx | Lang::CPreprocessed | Lang::CxxPreprocessed
        )
    }

    fn from_x(name: &str) -> Option<Lang> {
        Some(match name {
            "c" | "c-header" => Lang::C,
            "c++" | "c++-header" => Lang::Cxx,
            "cpp-output" => Lang::CPreprocessed,
            "c++-cpp-output" => Lang::CxxPreprocessed,
            "assembler" | "assembler-with-cpp" => Lang::Asm,
            "ir" => Lang::Ir,
            _ => return None,
        })
    }

    fn from_extension(path: &str) -> Lang {
        let ext = std::path::Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("");
        match ext {
            "c" => Lang::C,
            "cc" | "cp" | "cpp" | "cxx" | "CPP" | "c++" | "C" | "cppm" => Lang::Cxx,
            "i" => Lang::CPreprocessed,
            "ii" => Lang::CxxPreprocessed,
            "s" | "S" | "sx" => Lang::Asm,
            "ll" | "bc" => Lang::Ir,
            _ => Lang::Linker,
        }
    }
}

/// Which steps a flag is given to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Front end only (`-I`, `-D`, `-std=`, `-W`, `-M*`...).
    Compile,
    /// Front end, code generation and link (`-O`, `-f`, `-m`, `-g`, `-pthread`, `--target`...).
    Both,
    /// Link only (`-l`, `-L`, `-Wl,`, `-shared`...).
    Link,
}

/// What the command asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Run clang unchanged (`-E`, `-S`, `-M`, `--version`, no inputs...).
    PassThrough,
    /// `-c`: compile each source to an object.
    Compile,
    /// Compile the sources, then link everything.
    Link,
}

/// One command-line element, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A flag with its separate argument if any.
    Flag {
        /// The flag's words (one, or two for `-I dir` style).
        words: Vec<String>,
        /// Steps it goes to.
        role: Role,
    },
    /// An input file with the language it is compiled as.
    Input {
        /// Path as given.
        path: String,
        /// Language (from `-x` or the extension).
        lang: Lang,
        /// True if the language came from an explicit `-x`.
        explicit: bool,
    },
}

/// A parsed command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// The arguments as given (after response-file expansion).
    pub original: Vec<String>,
    /// Every flag and input in order (`-o`, `-c` and `-x` excluded).
    pub items: Vec<Item>,
    /// What to do.
    pub mode: Mode,
    /// `-o` argument.
    pub output: Option<String>,
    /// `-MD` or `-MMD` given.
    pub dep_file: bool,
    /// `-MF` given.
    pub dep_file_named: bool,
    /// `-MT` or `-MQ` given.
    pub dep_target_named: bool,
    /// `-shared` or `-r` given (no PIE link).
    pub shared: bool,
    /// Some `-g` flag other than `-g0` given.
    pub debug: bool,
    /// `-fPIC` or `-fpic` given.
    pub pic: bool,
}

/// Flags whose argument is the next word.
const SEPARATE: &[&str] = &[
    "-o",
    "-x",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-I",
    "-D",
    "-U",
    "-L",
    "-l",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-Xclang",
    "-Xpreprocessor",
    "-Xlinker",
    "-Xassembler",
    "-target",
    "-T",
    "-u",
    "-z",
    "-arch",
    "--param",
    "-gcc-toolchain",
    "--sysroot",
    "-aux-info",
];

/// Flags that make the whole command a pass-through to clang.
const PASS_THROUGH: &[&str] = &[
    "-E",
    "-S",
    "-M",
    "-MM",
    "-fsyntax-only",
    "-emit-llvm",
    "-###",
];

fn role_of(flag: &str) -> Role {
    const COMPILE_PREFIXES: &[&str] = &[
        "-I",
        "-D",
        "-U",
        "-include",
        "-imacros",
        "-isystem",
        "-iquote",
        "-idirafter",
        "-iprefix",
        "-iwithprefix",
        "-isysroot",
        "-std=",
        "-ansi",
        "-W",
        "-w",
        "-pedantic",
        "-Xclang",
        "-Xpreprocessor",
        "-nostdinc",
        "-trigraphs",
        "-M",
        "-C",
        "-P",
        "-H",
    ];
    const LINK_PREFIXES: &[&str] = &[
        "-l",
        "-L",
        "-Wl,",
        "-Xlinker",
        "-shared",
        "-static",
        "-pie",
        "-no-pie",
        "-nopie",
        "-rdynamic",
        "-nostdlib",
        "-nostartfiles",
        "-nodefaultlibs",
        "-T",
        "-u",
        "-z",
        "-s",
        "-r",
        "-fuse-ld=",
        "-Xassembler",
    ];
    let exact_or_prefix = |list: &[&str]| {
        list.iter().any(|p| {
            flag == *p
                || (flag.starts_with(p)
                    && !matches!(*p, "-s" | "-r" | "-u" | "-z" | "-T" | "-C" | "-P" | "-H"))
        })
    };
    // `-Wl,` before `-W`: it is a link flag.
    if flag.starts_with("-Wl,") {
        return Role::Link;
    }
    if exact_or_prefix(COMPILE_PREFIXES) {
        return Role::Compile;
    }
    if exact_or_prefix(LINK_PREFIXES) || flag.starts_with("-static-") {
        return Role::Link;
    }
    Role::Both
}

/// Parses the arguments after the program name (response files already expanded).
pub fn parse(args: &[String]) -> Invocation {
    let mut inv = Invocation {
        original: args.to_vec(),
        items: Vec::new(),
        mode: Mode::Link,
        output: None,
        dep_file: false,
        dep_file_named: false,
        dep_target_named: false,
        shared: false,
        debug: false,
        pic: false,
    };
    let mut compile_only = false;
    let mut pass_through = false;
    let mut x_lang: Option<Lang> = None;
    let mut x_unknown = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "-" {
            pass_through = true;
            continue;
        }
        if !arg.starts_with('-') || arg.len() == 1 {
            let (lang, explicit) = match x_lang {
                Some(l) => (l, true),
                None if x_unknown => (Lang::Linker, true),
                None => (Lang::from_extension(arg), false),
            };
            inv.items.push(Item::Input {
                path: arg.clone(),
                lang,
                explicit,
            });
            continue;
        }
        let mut words = vec![arg.clone()];
        if SEPARATE.contains(&arg.as_str()) && i < args.len() {
            words.push(args[i].clone());
            i += 1;
        }
        let value = words.get(1).cloned();
        match arg.as_str() {
            "-c" => {
                compile_only = true;
                continue;
            }
            "-o" => {
                inv.output = value;
                continue;
            }
            "-x" => {
                let name = value.unwrap_or_default();
                x_lang = Lang::from_x(&name);
                x_unknown = x_lang.is_none() && name != "none";
                continue;
            }
            "-MD" | "-MMD" => inv.dep_file = true,
            "-MF" => inv.dep_file_named = true,
            "-MT" | "-MQ" => inv.dep_target_named = true,
            "-shared" | "-r" => inv.shared = true,
            "-fPIC" | "-fpic" => inv.pic = true,
            _ => {}
        }
        if let Some(out) = arg.strip_prefix("-o") {
            inv.output = Some(out.to_string());
            continue;
        }
        if let Some(name) = arg.strip_prefix("-x") {
            x_lang = Lang::from_x(name);
            x_unknown = x_lang.is_none() && name != "none";
            continue;
        }
        if arg.starts_with("-MF") {
            inv.dep_file_named = true;
        }
        if arg.starts_with("-MT") || arg.starts_with("-MQ") {
            inv.dep_target_named = true;
        }
        if arg.starts_with("-g") && arg != "-g0" {
            inv.debug = true;
        }
        if PASS_THROUGH.contains(&arg.as_str()) {
            pass_through = true;
        }
        inv.items.push(Item::Flag {
            words,
            role: role_of(arg),
        });
    }
    let has_inputs = inv.items.iter().any(|it| matches!(it, Item::Input { .. }));
    inv.mode = if pass_through || !has_inputs {
        Mode::PassThrough
    } else if compile_only {
        Mode::Compile
    } else {
        Mode::Link
    };
    inv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn compile_command() {
        let inv = parse(&s(&[
            "-O2", "-I", "inc", "-DX=1", "-c", "a.c", "-o", "a.o", "-MMD", "-MP",
        ]));
        assert_eq!(inv.mode, Mode::Compile);
        assert_eq!(inv.output.as_deref(), Some("a.o"));
        assert!(inv.dep_file && !inv.dep_file_named && !inv.dep_target_named);
        let roles: Vec<_> = inv
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Flag { words, role } => Some((words.join(" "), *role)),
                _ => None,
            })
            .collect();
        assert_eq!(
            roles,
            vec![
                ("-O2".to_string(), Role::Both),
                ("-I inc".to_string(), Role::Compile),
                ("-DX=1".to_string(), Role::Compile),
                ("-MMD".to_string(), Role::Compile),
                ("-MP".to_string(), Role::Compile),
            ]
        );
    }

    #[test]
    fn link_command_with_objects_archives_and_libraries() {
        let inv = parse(&s(&[
            "main.o",
            "libq.a",
            "-L.",
            "-lm",
            "-Wl,--as-needed",
            "-o",
            "prog",
        ]));
        assert_eq!(inv.mode, Mode::Link);
        assert!(matches!(
            &inv.items[0],
            Item::Input {
                lang: Lang::Linker,
                ..
            }
        ));
        assert!(matches!(
            &inv.items[3],
            Item::Flag {
                role: Role::Link,
                ..
            }
        ));
        assert!(matches!(
            &inv.items[4],
            Item::Flag {
                role: Role::Link,
                ..
            }
        ));
    }

    #[test]
    fn x_language_applies_until_none() {
        let inv = parse(&s(&[
            "-x", "c++", "a.h", "-x", "none", "b.c", "-xc", "c.txt",
        ]));
        let langs: Vec<_> = inv
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Input { lang, .. } => Some(*lang),
                _ => None,
            })
            .collect();
        assert_eq!(langs, vec![Lang::Cxx, Lang::C, Lang::C]);
    }

    #[test]
    fn preprocess_version_and_no_input_pass_through() {
        assert_eq!(parse(&s(&["-E", "a.c"])).mode, Mode::PassThrough);
        assert_eq!(parse(&s(&["--version"])).mode, Mode::PassThrough);
        assert_eq!(
            parse(&s(&["-S", "a.c", "-o", "a.s"])).mode,
            Mode::PassThrough
        );
        assert_eq!(parse(&s(&["-v", "a.c"])).mode, Mode::Link);
    }

    #[test]
    fn flag_roles() {
        assert_eq!(role_of("-Wall"), Role::Compile);
        assert_eq!(role_of("-Wl,-rpath,x"), Role::Link);
        assert_eq!(role_of("-static-libstdc++"), Role::Link);
        assert_eq!(role_of("-std=c11"), Role::Compile);
        assert_eq!(role_of("-fPIC"), Role::Both);
        assert_eq!(role_of("-pthread"), Role::Both);
        assert_eq!(role_of("-shared"), Role::Link);
        assert_eq!(role_of("-save-temps"), Role::Both);
        assert_eq!(role_of("-march=native"), Role::Both);
    }
}
