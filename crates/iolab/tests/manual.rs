//! `iolab man` and `iolab completions`: made from the same command line
//! as `--help` (and so from the parameter definitions), checked with the
//! programs that read them: `man -l` renders the page, bash loads the
//! completion script.

mod common;
use common::*;
use iolab_spec::params::PARAMS;
use iolab_testutil::require;

fn out(args: &[&str]) -> std::process::Output {
    let o = iolab().args(args).output().unwrap();
    assert!(o.status.success(), "iolab {args:?}: {}", stderr(&o));
    o
}

#[test]
fn man_renders_with_man_l_and_lists_every_run_flag() {
    require!(
        iolab_testutil::have_tool("man"),
        "man is not installed (apt-get install man-db)"
    );
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("iolab.1");
    std::fs::write(&page, out(&["man"]).stdout).unwrap();
    let o = std::process::Command::new("man")
        .arg("-l")
        .arg(&page)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "100")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "man -l: {}", stderr(&o));
    // man hyphenates and marks hyphens its own way; compare letters only.
    let text = stdout(&o).replace(['\u{2010}', '\u{2212}'], "-");
    for p in PARAMS {
        assert!(
            text.contains(&format!("--{}", p.flag)),
            "--{} not in the rendered page",
            p.flag
        );
    }
    assert!(text.contains("--qd <N>"), "{text}");
    // The run flags of fio jobs (docs/fio.md), and `iolab fio`'s page.
    for flag in [
        "--parse-only",
        "--fio-json <FILE>",
        "--fio-json-plus",
        "--input-format <FORMAT>",
        "--ignore-unsupported",
        "[NAME=VALUE]",
        "--output-format=json",
    ] {
        assert!(text.contains(flag), "{flag} not in the rendered page");
    }
    assert!(text.contains("Outstanding I/Os per worker [default: 1]"));
    for sub in [
        "iolab-run",
        "iolab-fio",
        "iolab-compare",
        "iolab-completions",
        "iolab-iozone",
    ] {
        assert!(text.contains(sub), "{sub} not in the page");
    }
    // iolab iozone's page lists the iozone options it takes.
    assert!(text.contains("-t N") && text.contains("-+n"), "{text}");
    // One command's page alone, and a wrong name is bad input.
    let run = String::from_utf8(out(&["man", "run"]).stdout).unwrap();
    assert!(
        run.contains("iolab\\-run") && !run.contains(".TH iolab 1"),
        "{run}"
    );
    assert_bad_input(&iolab().args(["man", "nope"]).output().unwrap(), "nope");
}

#[test]
fn bash_completions_load_in_bash() {
    require!(iolab_testutil::have_tool("bash"), "bash is not installed");
    let bin = assert_cmd::cargo::cargo_bin("iolab");
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source <('{}' completions bash) && complete -p iolab",
            bin.display()
        ))
        .output()
        .unwrap();
    assert!(o.status.success(), "bash: {}", stderr(&o));
    assert!(stdout(&o).contains("iolab"), "{}", stdout(&o));
    let script = String::from_utf8(out(&["completions", "bash"]).stdout).unwrap();
    assert!(script.contains("--start-delay") && script.contains("--qd"));
    assert!(script.contains("--parse-only") && script.contains("--fio-json"));
}

#[test]
fn zsh_and_fish_completions_name_the_run_flags() {
    for shell in ["zsh", "fish"] {
        let script = String::from_utf8(out(&["completions", shell]).stdout).unwrap();
        assert!(!script.trim().is_empty(), "{shell}: empty");
        for flag in ["qd", "start-delay", "skew", "bs"] {
            let named = match shell {
                "fish" => script.contains(&format!("-l {flag}")),
                _ => script.contains(&format!("--{flag}")),
            };
            assert!(named, "{shell}: no --{flag}");
        }
    }
}

#[test]
fn an_unknown_shell_is_one_line_and_exit_2() {
    let o = iolab().args(["completions", "foo"]).output().unwrap();
    assert_bad_input(&o, "foo");
    assert!(stderr(&o).contains("bash, zsh, fish"), "{}", stderr(&o));
    let o = iolab().args(["completions"]).output().unwrap();
    assert_bad_input(&o, "<SHELL>");
}
