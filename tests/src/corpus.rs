//! The corpus: real third-party C libraries (SQLite, zstd, liblzma) whose sources
//! come from crates pinned in `tests/corpus/Cargo.toml`, and the programs in
//! `tests/corpus/programs/` that drive them with threads.
//!
//! `cargo metadata` on that manifest downloads the crates' sources (nothing
//! is built by cargo) and says where they are; each library is then compiled
//! with `reach-cc -g -O1` into `target/corpus/<library>/`, once: the build is
//! reused while the sources, the flags and the wrapper binaries stay the same
//! (instrumenting the SQLite amalgamation takes minutes). A program is named
//! after its library (`sqlite_*.c`, `zstd_*.c`, `xz_*.c`) and linked against its
//! objects into `target/corpus/<program>`.

use crate::{bin, root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A library of the corpus: which crate holds it and how to compile it.
struct Library {
    /// Name, also the prefix of its programs' file names.
    name: &'static str,
    /// Crate whose source directory holds the C code.
    package: &'static str,
    /// The library's directory inside the crate.
    dir: &'static str,
    /// Source files (relative to `dir`; a trailing `/*.c` takes a directory's C files).
    sources: &'static [&'static str],
    /// Include directories for the library and its programs (relative to `dir`).
    includes: &'static [&'static str],
    /// Compiler flags for the library and its programs.
    flags: &'static [&'static str],
    /// File names the `/*.c` patterns leave out (the library's own build
    /// leaves them out too).
    skip: &'static [&'static str],
}

const LIBRARIES: &[Library] = &[
    Library {
        name: "sqlite",
        package: "libsqlite3-sys",
        dir: "sqlite3",
        sources: &["sqlite3.c"],
        includes: &["."],
        // Serialized threading mode (the default, made explicit); no
        // extension loading, so nothing needs dlopen.
        flags: &["-DSQLITE_THREADSAFE=1", "-DSQLITE_OMIT_LOAD_EXTENSION"],
        skip: &[],
    },
    Library {
        name: "zstd",
        package: "zstd-sys",
        dir: "zstd/lib",
        sources: &[
            "common/*.c",
            "compress/*.c",
            "decompress/*.c",
            "decompress/huf_decompress_amd64.S",
        ],
        includes: &[".", "common"],
        // The multithreaded compressor, with a job size small enough that a
        // buffer of a few tens of KB is cut into several jobs.
        flags: &["-DZSTD_MULTITHREAD", "-DZSTDMT_JOBSIZE_MIN=8192"],
        skip: &[],
    },
    Library {
        name: "xz",
        package: "lzma-sys",
        dir: "xz-5.2/src",
        sources: &[
            "liblzma/common/*.c",
            "liblzma/lzma/*.c",
            "liblzma/lz/*.c",
            "liblzma/check/*.c",
            "liblzma/delta/*.c",
            "liblzma/rangecoder/*.c",
            "liblzma/simple/*.c",
            "common/tuklib_cpucores.c",
            "common/tuklib_physmem.c",
        ],
        // The crate's config.h (POSIX threads: the multithreaded encoder)
        // sits two levels up.
        includes: &[
            "liblzma/api",
            "liblzma/common",
            "liblzma/check",
            "liblzma/lz",
            "liblzma/lzma",
            "liblzma/rangecoder",
            "liblzma/delta",
            "liblzma/simple",
            "common",
            "../..",
        ],
        flags: &["-DHAVE_CONFIG_H=1", "-std=gnu99"],
        // Table generators (programs of their own) and the small-size
        // variants of the CRCs, which duplicate the table ones.
        skip: &[
            "crc32_small.c",
            "crc64_small.c",
            "crc32_tablegen.c",
            "crc64_tablegen.c",
            "fastpos_tablegen.c",
            "price_tablegen.c",
        ],
    },
];

/// Errors of the corpus set-up.
pub type CorpusError = String;

/// Where the corpus builds go: `target/corpus`.
pub fn build_dir() -> PathBuf {
    crate::bin_dir()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| root().join("target"))
        .join("corpus")
}

/// The corpus programs' sources, sorted by name.
pub fn program_sources() -> Vec<PathBuf> {
    let dir = root().join("tests/corpus/programs");
    let mut all: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "c"))
                .collect()
        })
        .unwrap_or_default();
    all.sort();
    all
}

/// Source directory of each package of the corpus manifest, from `cargo
/// metadata` (which downloads the pinned crates if they are missing).
pub fn package_dirs() -> Result<Vec<(String, PathBuf)>, CorpusError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = root().join("tests/corpus/Cargo.toml");
    let output = Command::new(&cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata --manifest-path {} failed: {}",
            manifest.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let metadata: Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cargo metadata printed no JSON: {e}"))?;
    let packages = metadata["packages"]
        .as_array()
        .ok_or("cargo metadata: no packages")?;
    Ok(packages
        .iter()
        .filter_map(|p| {
            let name = p["name"].as_str()?;
            let dir = Path::new(p["manifest_path"].as_str()?).parent()?;
            Some((name.to_string(), dir.to_path_buf()))
        })
        .collect())
}

/// A built library: where its sources are, and its objects.
#[derive(Clone, Debug)]
pub struct BuiltLibrary {
    /// Library name (`sqlite`, `zstd`).
    pub name: String,
    /// Its source directory.
    pub dir: PathBuf,
    /// Flags and include directories its programs compile with.
    pub flags: Vec<String>,
    /// Its instrumented objects.
    pub objects: Vec<PathBuf>,
    /// How long compiling it took (zero when the previous build was reused).
    pub build_time: Duration,
    /// Identity of the inputs of the build.
    key: String,
}

/// Size and modification time of a file, as text (empty if missing).
fn identity(path: &Path) -> String {
    std::fs::metadata(path)
        .ok()
        .map(|m| {
            let time = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            format!("{} {}", m.len(), time.as_nanos())
        })
        .unwrap_or_default()
}

fn expand_sources(
    dir: &Path,
    patterns: &[&str],
    skip: &[&str],
) -> Result<Vec<PathBuf>, CorpusError> {
    let mut all = Vec::new();
    for pattern in patterns {
        match pattern.strip_suffix("/*.c") {
            Some(sub) => {
                let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(sub))
                    .map_err(|e| format!("{}: {e}", dir.join(sub).display()))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "c"))
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_none_or(|n| !skip.contains(&n))
                    })
                    .collect();
                files.sort();
                all.extend(files);
            }
            None => all.push(dir.join(pattern)),
        }
    }
    Ok(all)
}

/// Runs `reach-cc -g -O1 ARGS`, failing with its diagnostics.
fn reach_cc(args: &[String]) -> Result<(), CorpusError> {
    let output = Command::new(bin("reach-cc"))
        .args(["-g", "-O1"])
        .args(args)
        .output()
        .map_err(|e| format!("cannot run reach-cc: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "reach-cc {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Compiles every source of `lib` (from the package at `package_dir`),
/// largest first, on all cores; reuses the previous build when its inputs
/// are the same.
fn build_library(lib: &Library, package_dir: &Path) -> Result<BuiltLibrary, CorpusError> {
    let dir = package_dir.join(lib.dir);
    let mut flags: Vec<String> = lib.flags.iter().map(|f| f.to_string()).collect();
    flags.extend(
        lib.includes
            .iter()
            .map(|i| format!("-I{}", dir.join(i).display())),
    );
    let sources = expand_sources(&dir, lib.sources, lib.skip)?;
    let out = build_dir().join(lib.name);
    let objects: Vec<PathBuf> = sources
        .iter()
        .map(|s| {
            let relative = s.strip_prefix(&dir).unwrap_or(s);
            let flat = relative.to_string_lossy().replace('/', "_");
            out.join(format!("{flat}.o"))
        })
        .collect();
    let key = format!(
        "{}\n{}\nreach-cc {}\nreach-instrument {}\n",
        dir.display(),
        flags.join(" "),
        identity(&bin("reach-cc")),
        identity(&bin("reach-instrument"))
    );
    let stamp = out.join("stamp");
    let mut built = BuiltLibrary {
        name: lib.name.to_string(),
        dir: dir.clone(),
        flags: flags.clone(),
        objects: objects.clone(),
        build_time: Duration::ZERO,
        key: key.clone(),
    };
    let fresh = std::fs::read_to_string(&stamp).is_ok_and(|s| s == key)
        && objects.iter().all(|o| o.exists());
    if fresh {
        return Ok(built);
    }
    let start = Instant::now();
    let _ = std::fs::remove_file(&stamp);
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut jobs: Vec<(PathBuf, PathBuf)> = sources.into_iter().zip(objects).collect();
    jobs.sort_by_key(|(s, _)| std::cmp::Reverse(std::fs::metadata(s).map_or(0, |m| m.len())));
    compile_all(&jobs, &flags)?;
    std::fs::write(&stamp, &key).map_err(|e| format!("{}: {e}", stamp.display()))?;
    built.build_time = start.elapsed();
    Ok(built)
}

/// Compiles `(source, object)` pairs with `flags` on every core.
fn compile_all(jobs: &[(PathBuf, PathBuf)], flags: &[String]) -> Result<(), CorpusError> {
    let next = Mutex::new(jobs.iter());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| -> Result<(), CorpusError> {
                    loop {
                        let job = next.lock().unwrap_or_else(|e| e.into_inner()).next();
                        let Some((source, object)) = job else {
                            return Ok(());
                        };
                        let mut args = flags.to_vec();
                        args.push("-c".into());
                        args.push(source.to_string_lossy().into_owned());
                        args.push("-o".into());
                        args.push(object.to_string_lossy().into_owned());
                        reach_cc(&args)?;
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a build thread panicked".into()))
            })
            .collect::<Result<Vec<()>, CorpusError>>()
            .map(|_| ())
    })
}

static LIBRARIES_BUILT: Mutex<Vec<BuiltLibrary>> = Mutex::new(Vec::new());

/// Builds (or reuses) every corpus library; the libraries are compiled
/// together, so the cores stay busy while the big SQLite file compiles.
pub fn build_libraries() -> Result<Vec<BuiltLibrary>, CorpusError> {
    let mut built = LIBRARIES_BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !built.is_empty() {
        return Ok(built.clone());
    }
    let packages = package_dirs()?;
    let dir_of = |package: &str| {
        packages
            .iter()
            .find(|(name, _)| name == package)
            .map(|(_, dir)| dir.clone())
            .ok_or_else(|| format!("tests/corpus/Cargo.toml has no package {package}"))
    };
    let dirs = LIBRARIES
        .iter()
        .map(|lib| dir_of(lib.package))
        .collect::<Result<Vec<_>, _>>()?;
    let results: Vec<Result<BuiltLibrary, CorpusError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = LIBRARIES
            .iter()
            .zip(&dirs)
            .map(|(lib, dir)| scope.spawn(move || build_library(lib, dir)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a build thread panicked".into()))
            })
            .collect()
    });
    *built = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(built.clone())
}

/// Builds (or reuses) the corpus program `tests/corpus/programs/<name>.c`
/// and returns the executable.
pub fn build_program(name: &str) -> Result<PathBuf, CorpusError> {
    static PROGRAM_BUILD: Mutex<()> = Mutex::new(());
    let _guard = PROGRAM_BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let source = root().join(format!("tests/corpus/programs/{name}.c"));
    if !source.exists() {
        return Err(format!("no corpus program {}", source.display()));
    }
    let prefix = name.split('_').next().unwrap_or(name);
    let libraries = build_libraries()?;
    let lib = libraries
        .iter()
        .find(|l| l.name == prefix)
        .ok_or_else(|| format!("{name}: no corpus library {prefix}"))?;
    let out = build_dir().join(name);
    let stamp = build_dir().join(format!("{name}.stamp"));
    let key = format!("{}{}\n", lib.key, identity(&source));
    if out.exists() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == key) {
        return Ok(out);
    }
    let tmp = out.with_extension("tmp");
    let mut args = lib.flags.clone();
    args.push(source.to_string_lossy().into_owned());
    args.extend(lib.objects.iter().map(|o| o.to_string_lossy().into_owned()));
    args.push("-o".into());
    args.push(tmp.to_string_lossy().into_owned());
    reach_cc(&args)?;
    std::fs::rename(&tmp, &out).map_err(|e| format!("{}: {e}", out.display()))?;
    std::fs::write(&stamp, key).map_err(|e| format!("{}: {e}", stamp.display()))?;
    Ok(out)
}
