//! The crates' modules form layers: no module imports one that imports it
//! back, directly or through others (ARCHITECTURE.md draws the layers).
//! The pass, the runtime and the RC11 oracle are checked file by file, the
//! driver by its top-level modules. A reference is a `crate::` or `super::`
//! path in code (comments and `#[cfg(test)] mod tests` left out).

use reach_tests::root;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`a::b`) of each source file under `src`.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read a source directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path
                .strip_prefix(src)
                .expect("under src")
                .with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            let text = std::fs::read_to_string(&path).expect("read a source file");
            out.insert(parts.join("::"), code_of(&text));
        }
    }
    out
}

/// `text` without comments and without its unit-test module.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths `code` names after `crate::` (with `use crate::{a, b::c}`
/// groups spread out), and after `super::` resolved against `module`.
fn references(code: &str, module: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let words = |s: &str| -> Vec<String> {
        s.split("::")
            .map(|w| {
                w.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<String>()
            })
            .take_while(|w| !w.is_empty())
            .collect()
    };
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let body = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(body.split(',').map(|item| words(item.trim())));
        } else {
            out.push(words(rest));
        }
    }
    let parent: Vec<String> = module.split("::").map(str::to_string).collect();
    for (at, _) in code.match_indices("super::") {
        let mut path = parent[..parent.len().saturating_sub(1)].to_vec();
        path.extend(words(&code[at + "super::".len()..]));
        out.push(path);
    }
    out
}

/// The import graph between modules (cut to `depth` path segments; 0:
/// whole paths).
fn graph(src: &Path, depth: usize) -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules(src);
    let cut = |m: &str| -> String {
        if depth == 0 {
            m.to_string()
        } else {
            m.split("::").take(depth).collect::<Vec<_>>().join("::")
        }
    };
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, code) in &mods {
        for path in references(code, module) {
            let target = (1..=path.len())
                .rev()
                .map(|n| path[..n].join("::"))
                .find(|p| mods.contains_key(p));
            let (Some(target), from) = (target, cut(module)) else {
                continue;
            };
            let to = cut(&target);
            if !from.is_empty() && from != to {
                edges.entry(from).or_default().insert(to);
            }
        }
    }
    edges
}

/// A circle of imports in `edges`, if there is one.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search with the path on a stack (no recursion).
    let mut done: BTreeSet<&str> = BTreeSet::new();
    for start in edges.keys() {
        if done.contains(start.as_str()) {
            continue;
        }
        let mut path: Vec<(&str, Vec<&str>)> = vec![(start, next_of(edges, start))];
        while let Some((node, next)) = path.last_mut() {
            let node = *node;
            match next.pop() {
                Some(to) if path.iter().any(|(n, _)| *n == to) => {
                    let from = path.iter().position(|(n, _)| *n == to).unwrap_or(0);
                    let mut names: Vec<String> =
                        path[from..].iter().map(|(n, _)| n.to_string()).collect();
                    names.push(to.to_string());
                    return Some(names);
                }
                Some(to) if !done.contains(to) => path.push((to, next_of(edges, to))),
                Some(_) => {}
                None => {
                    done.insert(node);
                    path.pop();
                }
            }
        }
    }
    None
}

fn next_of<'a>(edges: &'a BTreeMap<String, BTreeSet<String>>, node: &str) -> Vec<&'a str> {
    edges
        .get(node)
        .map(|s| s.iter().map(String::as_str).collect())
        .unwrap_or_default()
}

fn no_circle(crate_src: &str, depth: usize) {
    let edges = graph(&root().join(crate_src), depth);
    assert!(
        edges.len() > 3,
        "{crate_src}: only {} modules import",
        edges.len()
    );
    if let Some(names) = circle(&edges) {
        panic!("{crate_src}: a circle of imports: {}", names.join(" -> "));
    }
}

#[test]
fn the_runtime_has_no_circle_of_imports() {
    no_circle("runtime/src", 0);
}

#[test]
fn the_pass_has_no_circle_of_imports() {
    no_circle("pass/src", 0);
}

#[test]
fn the_drivers_top_level_modules_have_no_circle_of_imports() {
    no_circle("driver/src", 1);
}

#[test]
fn the_memory_model_oracle_has_no_circle_of_imports() {
    no_circle("model/rc11/src", 0);
}

#[test]
fn a_circle_is_found() {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    edges.entry("a".into()).or_default().insert("b".into());
    edges.entry("b".into()).or_default().insert("c".into());
    edges.entry("c".into()).or_default().insert("a".into());
    edges.entry("d".into()).or_default().insert("a".into());
    assert_eq!(
        circle(&edges),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    edges.get_mut("c").map(|s| s.remove("a"));
    assert_eq!(circle(&edges), None);
}
