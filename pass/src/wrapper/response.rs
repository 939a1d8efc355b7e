//! Expanding `@file` response-file arguments, as cc and clang do.
//!
//! ```text
//! reach-cc @args.rsp main.c     (args.rsp: -O2 "-DNAME=a b")  ->  reach-cc -O2 "-DNAME=a b" main.c
//! ```

use std::path::Path;

const MAX_DEPTH: usize = 16;

/// Replaces every `@file` argument naming a readable file by the arguments
/// it contains (recursively); other arguments, and `@file` arguments whose
/// file cannot be read, are kept as they are.
pub fn expand(args: &[String]) -> Vec<String> {
    expand_at(args, 0)
}

fn expand_at(args: &[String], depth: usize) -> Vec<String> {
    let mut out = Vec::new();
    for arg in args {
        match arg.strip_prefix('@') {
            Some(file) if depth < MAX_DEPTH && !file.is_empty() => {
                match std::fs::read_to_string(Path::new(file)) {
                    Ok(text) => out.extend(expand_at(&split(&text), depth + 1)),
                    Err(_) => out.push(arg.clone()),
                }
            }
            _ => out.push(arg.clone()),
        }
    }
    out
}

/// Splits response-file text into arguments: whitespace separates, single
/// and double quotes group, a backslash escapes the next character.
pub fn split(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut cur = String::new();
    let mut in_arg = false;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(ch) = chars.next() {
        match (ch, quote) {
            ('\\', _) => {
                if let Some(next) = chars.next() {
                    cur.push(next);
                }
                in_arg = true;
            }
            (q, Some(open)) if q == open => quote = None,
            (c, Some(_)) => cur.push(c),
            ('"' | '\'', None) => {
                quote = Some(ch);
                in_arg = true;
            }
            (c, None) if c.is_whitespace() => {
                if in_arg {
                    args.push(std::mem::take(&mut cur));
                    in_arg = false;
                }
            }
            (c, None) => {
                cur.push(c);
                in_arg = true;
            }
        }
    }
    if in_arg {
        args.push(cur);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_quotes_and_escapes() {
        assert_eq!(
            split("-O2  \"-DNAME=a b\" 'x y'\n-I\\ dir"),
            vec!["-O2", "-DNAME=a b", "x y", "-I dir"]
        );
        assert_eq!(split("-D\"\"E"), vec!["-DE"]);
    }

    #[test]
    fn expands_nested_files_and_keeps_missing_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let inner = dir.path().join("inner.rsp");
        let outer = dir.path().join("outer.rsp");
        std::fs::write(&inner, "-DB").expect("write");
        std::fs::write(&outer, format!("-DA @{}", inner.display())).expect("write");
        let args = vec![
            format!("@{}", outer.display()),
            "@/nonexistent/x".to_string(),
        ];
        assert_eq!(expand(&args), vec!["-DA", "-DB", "@/nonexistent/x"]);
    }
}
