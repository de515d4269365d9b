//! No function on the engine's per-I/O path is longer than a screen.
//!
//! How it measures: every source file of the per-I/O path (the worker
//! loop, the engines, the offset generator, the data patterns, the
//! verification hooks, the clock, the buffers and the run core's worker
//! port) is scanned line by
//! line; a line that declares a `fn` starts a function, and a brace
//! counter (braces inside string and character literals and `//`
//! comments do not count) finds the line of its closing brace. The
//! length is the number of lines from the `fn` line to that brace,
//! both included, as `cargo fmt` lays them out. A declaration without a
//! body (a trait's `fn ...;`) is skipped. Any function over
//! [`MAX_LINES`] fails the test, named with its file and line.

use std::path::Path;

const MAX_LINES: usize = 80;

const PER_IO_FILES: &[&str] = &[
    "src/worker.rs",
    "src/engines/mod.rs",
    "src/engines/null.rs",
    "src/engines/psync.rs",
    "src/engines/uring.rs",
    "src/gen.rs",
    "src/gen/dist.rs",
    "src/data.rs",
    "src/verify.rs",
    "src/clock.rs",
    "src/buffers.rs",
    // The file-system driver.
    "src/fs/mod.rs",
    "src/fs/exec.rs",
    "src/fs/action.rs",
    "src/fs/sync.rs",
    "src/fs/table.rs",
    "src/fs/setup.rs",
    "src/fs/sizes.rs",
    // The run core's worker side (gap tracker, error tally, snapshots).
    "../core/src/port.rs",
];

/// The line's code with string/char literal contents and `//` comments
/// removed, so only real braces remain.
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if in_str {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '/' if chars.peek() == Some(&'/') => break,
            // A char literal such as '{' (not a lifetime like 'a).
            '\'' => {
                let rest: String = chars.clone().take(3).collect();
                if rest.starts_with('\\') {
                    for x in chars.by_ref() {
                        if x == '\'' {
                            break;
                        }
                    }
                } else if rest.chars().nth(1) == Some('\'') {
                    chars.next();
                    chars.next();
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn is_fn_start(code: &str) -> Option<String> {
    let t = code.trim_start();
    let mut words = t.split_whitespace().peekable();
    while let Some(w) = words.peek() {
        if matches!(
            *w,
            "pub" | "const" | "unsafe" | "async" | "extern" | "default"
        ) || w.starts_with("pub(")
        {
            words.next();
        } else {
            break;
        }
    }
    if words.next()? != "fn" {
        return None;
    }
    let name = words.next()?;
    Some(name.split(['(', '<']).next().unwrap_or(name).to_string())
}

/// (name, first line, length) of every function with a body in `src`.
fn functions(src: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<String> = src.lines().map(code_of).collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(name) = is_fn_start(l) else { continue };
        let mut depth = 0i64;
        let mut opened = false;
        'scan: for (j, code) in lines.iter().enumerate().skip(i) {
            for c in code.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    ';' if !opened && depth == 0 => break 'scan,
                    _ => {}
                }
                if opened && depth == 0 {
                    out.push((name.clone(), i + 1, j - i + 1));
                    break 'scan;
                }
            }
        }
    }
    out
}

#[test]
fn the_counter_measures_what_it_should() {
    let src = "fn a() {\n    let s = \"{{\";\n    // }\n    if x { y('{') }\n}\ntrait T { fn b(&self); }\npub(crate) fn c<T>(x: T)\nwhere T: Copy\n{\n}\n";
    let f = functions(src);
    assert_eq!(f, vec![("a".into(), 1, 5), ("c".into(), 7, 4)]);
}

#[test]
fn no_per_io_function_is_longer_than_a_screen() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    let mut seen = 0;
    for f in PER_IO_FILES {
        let src = std::fs::read_to_string(root.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        for (name, line, len) in functions(&src) {
            seen += 1;
            if len > MAX_LINES {
                long.push(format!("{f}:{line} fn {name}: {len} lines"));
            }
        }
    }
    assert!(
        seen > 50,
        "only {seen} functions found: is the scanner broken?"
    );
    assert!(
        long.is_empty(),
        "functions on the per-I/O path over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}
