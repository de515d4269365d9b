//! Tests of fio's job-file syntax (parse.rs).

use super::*;

const B: Builtins = Builtins {
    ncpus: 4,
    mb_memory: 8000,
    pagesize: 4096,
};

fn no_env(_: &str) -> Option<String> {
    None
}

fn host<'a>(env: &'a dyn Fn(&str) -> Option<String>) -> Host<'a> {
    Host {
        env,
        builtins: B,
        read: &read_include,
    }
}

fn parse(text: &str) -> Result<FioFile, JobError> {
    parse_files_with(&[("t.fio".into(), text.into())], &[], &host(&no_env))
}

fn opts(job: &FioJob) -> Vec<(String, Option<String>)> {
    job.options
        .iter()
        .map(|o| (o.key.clone(), o.value.clone()))
        .collect()
}

fn kv(k: &str, v: Option<&str>) -> (String, Option<String>) {
    (k.to_string(), v.map(String::from))
}

#[test]
fn globals_apply_to_the_jobs_after_them_and_add_up() {
    let f = parse("[global]\nbs=4k\n[a]\nrw=read\n[global]\niodepth=8\n[b]\nbs=8k\n").unwrap();
    assert_eq!(f.jobs.len(), 2);
    assert_eq!(f.jobs[0].name, "a");
    assert_eq!(
        opts(&f.jobs[0]),
        [kv("bs", Some("4k")), kv("rw", Some("read"))]
    );
    assert_eq!(
        opts(&f.jobs[1]),
        [
            kv("bs", Some("4k")),
            kv("iodepth", Some("8")),
            kv("bs", Some("8k"))
        ]
    );
    assert_eq!(f.jobs[1].get("bs").unwrap().value.as_deref(), Some("8k"));
    assert_eq!((f.jobs[1].file.as_str(), f.jobs[1].line), ("t.fio", 7));
}

#[test]
fn every_option_has_its_file_and_line() {
    let f = parse("; top\n\n[job one]\n  direct=1 \n# c\nsize = 1g ; trailing\n").unwrap();
    let j = &f.jobs[0];
    assert_eq!(j.name, "job one");
    let places: Vec<String> = j.options.iter().map(|o| o.place()).collect();
    assert_eq!(places, ["t.fio:4", "t.fio:6"]);
    assert_eq!(opts(j), [kv("direct", Some("1")), kv("size", Some("1g"))]);
}

#[test]
fn comments_are_cut_at_the_first_semicolon_then_hash() {
    let f = parse(
        "[j] # header comment\nruntime=3600  # max\nfilename=/dev/x ; note # more\nbs=4k#x;y\n",
    )
    .unwrap();
    assert_eq!(
        opts(&f.jobs[0]),
        [
            kv("runtime", Some("3600")),
            kv("filename", Some("/dev/x")),
            kv("bs", Some("4k"))
        ]
    );
}

#[test]
fn bare_booleans_have_no_value_and_names_keep_their_case() {
    let f = parse("[j]\ntime_based\nDirect=1\nnorandommap\r\nbs=\n").unwrap();
    assert_eq!(
        opts(&f.jobs[0]),
        [
            kv("time_based", None),
            kv("Direct", Some("1")),
            kv("norandommap", None),
            kv("bs", Some(""))
        ]
    );
}

#[test]
fn global_is_any_section_named_global_something() {
    let f = parse("[global-settings]\nbs=1m\n[j]\n").unwrap();
    assert_eq!(opts(&f.jobs[0]), [kv("bs", Some("1m"))]);
}

#[test]
fn variables_from_arguments_then_environment_then_nothing() {
    let env = |n: &str| (n == "FROM_ENV" || n == "BOTH").then(|| format!("env-{n}"));
    let vars = vec![
        ("BOTH".to_string(), "arg".to_string()),
        ("UNUSED".to_string(), "x".to_string()),
        ("BOTH".to_string(), "arg2".to_string()),
    ];
    let text = "[j]\nfilename=${BOTH}\ndirectory=${FROM_ENV}/d\nbs=${NOWHERE}4k\n${BOTH}_key=1\n";
    let f = parse_files_with(&[("t.fio".into(), text.into())], &vars, &host(&env)).unwrap();
    assert_eq!(
        opts(&f.jobs[0]),
        [
            kv("filename", Some("arg2")),
            kv("directory", Some("env-FROM_ENV/d")),
            kv("bs", Some("4k")),
            kv("arg2_key", Some("1")),
        ]
    );
    assert_eq!(f.unused_vars, ["UNUSED"]);
}

#[test]
fn builtin_variables_and_their_arithmetic() {
    let f = parse(
        "[j]\nnumjobs=$ncpus\nbs=$pagesize\nsize=5*1024*1024*$mb_memory/8\nsize2=$mb_memory-1000\nname='$ncpus-x'\n",
    )
    .unwrap();
    assert_eq!(
        opts(&f.jobs[0]),
        [
            kv("numjobs", Some("4")),
            kv("bs", Some("4096")),
            kv("size", Some("5242880000")),
            kv("size2", Some("7000")),
            kv("name", Some("'4-x'")),
        ]
    );
    let e = parse("[j]\nfilename=/tmp/x$ncpus\n").unwrap_err();
    assert!(e.0.starts_with("t.fio:2: "), "{e}");
}

#[test]
fn later_files_start_with_a_stonewall_and_keep_the_globals() {
    let files = vec![
        ("a.fio".to_string(), "[global]\nbs=8k\n[one]\n".to_string()),
        (
            "b.fio".to_string(),
            "[global]\niodepth=2\n[two]\n[three]\n".to_string(),
        ),
    ];
    let f = parse_files_with(&files, &[], &host(&no_env)).unwrap();
    assert_eq!(opts(&f.jobs[0]), [kv("bs", Some("8k"))]);
    assert_eq!(
        opts(&f.jobs[1]),
        [
            kv("bs", Some("8k")),
            kv("iodepth", Some("2")),
            kv("stonewall", None)
        ]
    );
    assert_eq!(f.jobs[1].options[2].place(), "b.fio:3");
    assert_eq!(
        opts(&f.jobs[2]),
        [kv("bs", Some("8k")), kv("iodepth", Some("2"))]
    );
}

#[test]
fn includes_read_relative_to_the_including_file() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("common.fio"), "bs=64k\ninclude deeper.fio\n").unwrap();
    std::fs::write(sub.join("deeper.fio"), "; c\niodepth=16\n").unwrap();
    let main = dir.path().join("main.fio");
    let text = "[global]\ninclude sub/common.fio\n[j]\nrw=write\n";
    let origin = main.display().to_string();
    let f = parse_files_with(&[(origin.clone(), text.into())], &[], &host(&no_env)).unwrap();
    let j = &f.jobs[0];
    assert_eq!(
        opts(j),
        [
            kv("bs", Some("64k")),
            kv("iodepth", Some("16")),
            kv("rw", Some("write"))
        ]
    );
    assert_eq!(
        j.options[1].file,
        sub.join("deeper.fio").display().to_string()
    );
    assert_eq!(j.options[1].line, 2);
    assert_eq!(j.options[2].file, origin);
}

#[test]
fn includes_are_bounded_and_hold_no_sections() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("self.fio"), "include self.fio\n").unwrap();
    std::fs::write(dir.path().join("sect.fio"), "bs=4k\n[x]\n").unwrap();
    let origin = dir.path().join("main.fio").display().to_string();
    let run = |text: &str| {
        parse_files_with(&[(origin.clone(), text.to_string())], &[], &host(&no_env)).unwrap_err()
    };
    let e = run("[j]\ninclude self.fio\n");
    assert!(e.0.contains("nests more than"), "{e}");
    let e = run("[j]\ninclude sect.fio\n");
    assert!(
        e.0.contains("sect.fio:2:") && e.0.contains("included file"),
        "{e}"
    );
    let e = run("[j]\ninclude missing.fio\n");
    assert!(e.0.contains("main.fio:2: include missing.fio"), "{e}");
    let e = run("include sect.fio\n[j]\n");
    assert!(
        e.0.contains("main.fio:1:") && e.0.contains("outside"),
        "{e}"
    );
}

#[test]
fn bad_syntax_is_one_line_naming_file_and_line() {
    let long = format!("[j]\nfilename={}\n", "x".repeat(MAX_LINE));
    let big_var = "[j]\nf=${V}${V}${V}\n";
    let cases: Vec<(&str, &str)> = vec![
        ("bs=4k\n[j]\n", "t.fio:1:"),
        ("[]\n", "t.fio:1:"),
        ("[j]\n[  ]\n", "t.fio:2:"),
        ("[j\n", "t.fio:1:"),
        ("[j] x\n", "t.fio:1:"),
        ("[j]\n=4k\n", "t.fio:2:"),
        ("[j]\nbs=4k\0\n", "t.fio:2:"),
        (long.as_str(), "t.fio:2:"),
        ("[global]\nbs=4k\n", "no job section"),
        ("", "no job section"),
    ];
    for (text, want) in cases {
        let e = parse(text).unwrap_err();
        assert!(e.0.contains(want) && !e.0.contains('\n'), "{text:?}: {e}");
    }
    let vars = vec![("V".to_string(), "y".repeat(4000))];
    let e =
        parse_files_with(&[("t.fio".into(), big_var.into())], &vars, &host(&no_env)).unwrap_err();
    assert!(e.0.starts_with("t.fio:2:"), "{e}");
}

#[test]
fn the_machine_builtins_are_plausible() {
    let b = Builtins::of_this_machine();
    assert!(
        b.ncpus >= 1 && b.mb_memory >= 16 && b.pagesize >= 4096,
        "{b:?}"
    );
}

#[test]
fn fio_files_are_recognised_as_fio() {
    for text in [
        "[global]\nioengine=libaio\n[job]\n",
        "; comment\n[job1]\nrw=randread\nsize=128m\n",
        "[j]\ntime_based\n",
        "[j]\nsize=${SIZE}\n",
        "[global]\niodepth=4\n[j]\nbs=4k\n",
        "[j]\ninclude other.fio\n",
        "# x\n\n[seq-read]\nfilename = /dev/sdb\n",
    ] {
        assert!(looks_like_fio(text), "{text:?}");
    }
}

#[test]
fn iolab_toml_is_not_taken_for_fio() {
    for text in [
        "[global]\ntarget = \"/dev/sdX\"\n",
        "[[workload]]\nrw = \"randread\"\n",
        "[[run]]\nname = \"x\"\n",
        "[global]\njobs = 3\ndirect = true\n",
        "[global]\nqd = 1\n[[workload]]\nbs=\"4k\"\n",
        "",
        "# nothing\n",
        "[global]\ntarget = [\n  \"/dev/a\",\n  \"/dev/b\",\n]\n",
        "[global]\nfs = { dir = \"/mnt\" }\n",
    ] {
        assert!(!looks_like_fio(text), "{text:?}");
    }
}

#[test]
fn iolab_example_job_files_are_not_taken_for_fio() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            let text = std::fs::read_to_string(&p).unwrap();
            assert!(!looks_like_fio(&text), "{}", p.display());
            n += 1;
        }
    }
    assert!(n >= 5, "only {n} examples in {}", dir.display());
}

#[test]
fn jobs_and_options_are_bounded() {
    let many_jobs = "[j]\n".repeat(MAX_JOBS + 1);
    let e = parse(&many_jobs).unwrap_err();
    assert!(e.0.contains(&format!("t.fio:{}:", MAX_JOBS + 1)), "{e}");
    let globals = "[global]\n".to_string() + &"bs=4k\n".repeat(1000);
    let e = parse(&(globals + &"[j]\n".repeat(100))).unwrap_err();
    assert!(e.0.contains("more than 65536 options"), "{e}");
}

/// The TOML of iolab's docs and of the tests' job files (string literals
/// holding a `[global]` or `[[` table) is never taken for fio.
#[test]
fn iolab_toml_in_docs_and_tests_is_not_taken_for_fio() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/jobfile.md")).unwrap();
    let mut texts: Vec<String> = doc
        .split("```toml")
        .skip(1)
        .map(|b| b.split("```").next().unwrap_or("").to_string())
        .collect();
    let docs = texts.len();
    for dir in ["crates/iolab/tests", "crates/jobfile/tests"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let src = std::fs::read_to_string(p).unwrap();
            texts.extend(string_literals(&src).into_iter().filter(|s| {
                s.contains("[global]") || s.contains("[[workload]]") || s.contains("[[run]]")
            }));
        }
    }
    assert!(
        docs >= 5 && texts.len() >= docs + 10,
        "{docs} docs, {} in all",
        texts.len()
    );
    for t in &texts {
        assert!(!looks_like_fio(t), "taken for fio: {t:?}");
    }
}

/// The raw (`r#"..."#`) and plain (`"..."`, with `\n` and `\"`) string
/// literals of a Rust source, roughly.
fn string_literals(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in src.split("r#\"").skip(1) {
        out.push(part.split("\"#").next().unwrap_or("").to_string());
    }
    let mut cur: Option<String> = None;
    let mut chars = src.chars();
    while let Some(c) = chars.next() {
        match (&mut cur, c) {
            (None, '"') => cur = Some(String::new()),
            (Some(s), '\\') => match chars.next() {
                Some('n') => s.push('\n'),
                Some(o) => s.push(o),
                None => {}
            },
            (Some(_), '"') => out.push(cur.take().unwrap_or_default()),
            (Some(s), o) => s.push(o),
            (None, _) => {}
        }
    }
    out
}
