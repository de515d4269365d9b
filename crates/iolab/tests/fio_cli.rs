//! fio on iolab's command line: `iolab run` with a job file of either
//! language (told apart by content, or `--input-format`), `NAME=VALUE`
//! arguments, the notes, `--parse-only` (touches nothing), `--fio-json`
//! under the output rules, and `iolab fio` (fio's command line, fio's JSON
//! on stdout).

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// One line on stderr, exit 2, nothing on stdout that looks like a plan.
fn assert_one_line_bad(o: &std::process::Output, needle: &str) {
    let e = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "stderr: {e}\nstdout: {}",
        stdout(o)
    );
    assert_eq!(e.trim_end().lines().count(), 1, "not one line: {e}");
    assert!(e.contains(needle), "{needle:?} not in {e}");
    assert!(!e.contains("panicked"), "{e}");
}

/// A small fio job (one section, no [global]: fioparse scans test sources
/// for TOML with one) writing 1 MiB to `file`, psync, buffered.
fn fio_job(file: &Path, extra: &str) -> String {
    format!(
        "; a fio job\n[w]\nrw=write\nioengine=psync\nfilename={}\nsize=1m\nbs=4k\n{extra}\n",
        file.display()
    )
}

#[test]
fn iolab_example_files_are_never_taken_for_fio_and_still_plan() {
    let mut n = 0;
    for e in std::fs::read_dir(repo().join("examples")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        n += 1;
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            iolab_jobfile::frontend::detect(&text),
            iolab_jobfile::frontend::InputFormat::Iolab,
            "{} taken for fio",
            p.display()
        );
        let o = iolab()
            .arg("run")
            .arg(&p)
            .arg("--parse-only")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}: {}", p.display(), stderr(&o));
        assert!(stdout(&o).starts_with("plan: "), "{}", stdout(&o));
        // Forced to fio, a TOML file is bad input on one line.
        let o = iolab()
            .arg("run")
            .arg(&p)
            .args(["--input-format", "fio", "--parse-only"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}: {}", p.display(), stdout(&o));
    }
    assert!(n >= 5, "only {n} examples");
}

#[test]
fn a_fio_file_is_told_by_content_and_input_format_forces_iolab() {
    let dir = tempfile::tempdir().unwrap();
    // No .fio extension: the content decides.
    let job = dir.path().join("job.txt");
    std::fs::write(&job, fio_job(&dir.path().join("f"), "")).unwrap();
    let o = iolab()
        .arg("run")
        .arg(&job)
        .arg("--parse-only")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(" w: write 4 KiB"), "{}", stdout(&o));
    let o = iolab()
        .arg("run")
        .arg(&job)
        .args(["--input-format", "iolab", "--parse-only"])
        .output()
        .unwrap();
    assert_one_line_bad(&o, "job.txt");
    let o = iolab()
        .arg("run")
        .arg(&job)
        .args(["--input-format", "ini", "--parse-only"])
        .output()
        .unwrap();
    assert_one_line_bad(&o, "--input-format ini");
}

#[test]
fn name_value_pairs_fill_before_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.fio");
    std::fs::write(
        &job,
        format!(
            "[r]\nrw=read\nioengine=psync\nfilename={}\nsize=${{SZ}}\nbs=${{BS}}\n",
            dir.path().join("f").display()
        ),
    )
    .unwrap();
    let run = |args: &[&str], env_bs: &str| {
        iolab()
            .arg("run")
            .arg(&job)
            .args(args)
            .arg("--parse-only")
            .env("BS", env_bs)
            .output()
            .unwrap()
    };
    let o = run(&["SZ=2m"], "16k");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("read 16 KiB"), "{}", stdout(&o));
    let o = run(&["SZ=2m", "BS=8k"], "16k");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("read 8 KiB"), "{}", stdout(&o));
    // Not NAME=VALUE: one line, exit 2.
    assert_one_line_bad(&run(&["SZ=2m", "oops"], "4k"), "'oops'");
    assert_one_line_bad(&run(&["2X=1"], "4k"), "'2X=1'");
}

#[test]
fn an_unused_pair_is_mentioned_once_on_stdout_and_the_job_runs() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.fio");
    std::fs::write(&job, fio_job(&dir.path().join("f"), "")).unwrap();
    let o = iolab()
        .current_dir(dir.path())
        .arg("run")
        .arg(&job)
        .arg("NOBODY_USES_ME=3")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = stdout(&o)
        .lines()
        .filter(|l| l.contains("NOBODY_USES_ME"))
        .count();
    assert_eq!(said, 1, "{}", stdout(&o));
    assert!(!stderr(&o).contains("NOBODY_USES_ME"), "{}", stderr(&o));
    // Said before the run's first line.
    let out = stdout(&o);
    let note = out.find("NOBODY_USES_ME").unwrap();
    assert!(note < out.find("w: write").unwrap(), "{out}");
    assert_eq!(
        std::fs::metadata(dir.path().join("f")).unwrap().len(),
        1 << 20
    );
}

#[test]
fn parse_only_touches_no_target_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("not-created");
    let json = dir.path().join("r.json");
    let fjson = dir.path().join("f.json");
    let job = dir.path().join("j.fio");
    std::fs::write(&job, fio_job(&missing, "write_bw_log=bw")).unwrap();
    let o = iolab()
        .current_dir(dir.path())
        .arg("run")
        .arg(&job)
        .arg("--parse-only")
        .arg("--json")
        .arg(&json)
        .arg("--fio-json")
        .arg(&fjson)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("plan: "), "{}", stdout(&o));
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("j.fio")]);

    // A device that does not exist plans with --parse-only; --dry-run
    // checks it and refuses.
    let dev = "/dev/iolab-no-such-device-17";
    let args = ["run", "--target", dev, "--rw", "read", "--duration", "1s"];
    let o = iolab().args(args).arg("--parse-only").output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(dev), "{}", stdout(&o));
    let o = iolab().args(args).arg("--dry-run").output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));

    // Bad input is still one line and exit 2.
    std::fs::write(&job, fio_job(&missing, "iodepth=lots")).unwrap();
    let o = iolab()
        .arg("run")
        .arg(&job)
        .arg("--parse-only")
        .output()
        .unwrap();
    assert_one_line_bad(&o, "iodepth");
}

#[test]
fn parse_only_makes_no_system_call_on_the_target() {
    iolab_testutil::require_tool!("strace");
    let dir = tempfile::tempdir().unwrap();
    let dev = "/dev/iolab-no-such-device-17s";
    let file = dir.path().join("nofile");
    let job = dir.path().join("j.fio");
    std::fs::write(
        &job,
        format!(
            "[a]\nrw=randread\nfilename={dev}:{}\nsize=1m\n",
            file.display()
        ),
    )
    .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("iolab");
    let o = std::process::Command::new("strace")
        .args(["-f", "-e", "trace=%file,%desc"])
        .arg(&bin)
        .arg("run")
        .arg(&job)
        .arg("--parse-only")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let trace = stderr(&o);
    let file_s = file.display().to_string();
    let touching: Vec<&str> = trace
        .lines()
        .filter(|l| l.contains(dev) || l.contains(&file_s))
        .filter(|l| !l.starts_with("execve") && !l.contains("write(1,"))
        .collect();
    assert!(touching.is_empty(), "{touching:#?}");
    assert!(!file.exists());
}

#[test]
fn fio_json_follows_the_output_rules() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("t");
    let job = dir.path().join("j.fio");
    std::fs::write(&job, fio_job(&target, "")).unwrap();
    let run = |fjson: &Path, extra: &[&str]| {
        iolab()
            .current_dir(dir.path())
            .arg("run")
            .arg(&job)
            .arg("-q")
            .arg("--fio-json")
            .arg(fjson)
            .args(extra)
            .output()
            .unwrap()
    };
    // A file iolab did not write is kept, unless --force.
    let foreign = dir.path().join("fio.json");
    std::fs::write(&foreign, "{\"fio version\": \"fio-3.42\"}\n").unwrap();
    assert_one_line_bad(&run(&foreign, &[]), "--fio-json");
    assert_eq!(
        std::fs::read_to_string(&foreign).unwrap(),
        "{\"fio version\": \"fio-3.42\"}\n"
    );
    assert!(!target.exists(), "the run started before refusing");
    // Never a target of the run, not even with --force.
    std::fs::write(&target, vec![7u8; 1 << 20]).unwrap();
    assert_one_line_bad(&run(&target, &["--force"]), "--fio-json");
    std::fs::remove_file(&target).unwrap();
    // A directory is no output.
    assert_one_line_bad(&run(dir.path(), &[]), "--fio-json");
    let o = run(&foreign, &["--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&foreign).unwrap()).unwrap();
    assert!(v.is_object());
    // Its own earlier output is replaced without --force.
    let o = run(&foreign, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Standard output works: the document is all of stdout with -q? No:
    // the summary is there too; the JSON is the last thing written.
    let o = run(Path::new("/dev/stdout"), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let start = out.find("\n{").map(|i| i + 1).unwrap_or(0);
    let v: Value = serde_json::from_str(&out[start..]).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert!(v.is_object());
}

#[test]
fn fio_json_on_stdout_is_only_fio_json_and_agrees_with_the_document() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    let doc = dir.path().join("doc.json");
    let o = iolab()
        .current_dir(dir.path())
        .arg("fio")
        .args(["--name=a", "--rw=randread", "--bs=4k", "--size=16m"])
        .arg(format!("--filename={}", file.display()))
        .arg("--output-format=json")
        .arg(format!("--json={}", doc.display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not only JSON ({e}): {}", stdout(&o)));
    // iolab's own lines went to stderr.
    assert!(stderr(&o).contains("a: randread"), "{}", stderr(&o));
    assert_eq!(v["jobs"][0]["jobname"], "a", "{v:#}");
    let d: Value = serde_json::from_str(&std::fs::read_to_string(&doc).unwrap()).unwrap();
    let read = &d["runs"][0]["workloads"][0]["summary"]["read"];
    let ops = read["ops"].as_u64().unwrap();
    assert!(ops > 0);
    assert_eq!(
        v["jobs"][0]["read"]["total_ios"].as_u64(),
        Some(ops),
        "{v:#}"
    );
    assert_eq!(
        v["jobs"][0]["read"]["io_bytes"].as_u64(),
        read["bytes"].as_u64()
    );
    let (a, b) = (
        v["jobs"][0]["read"]["iops"].as_f64().unwrap(),
        read["iops"].as_f64().unwrap(),
    );
    assert!(
        (a - b).abs() <= 1e-6 * b.max(1.0),
        "fio iops {a}, iolab {b}"
    );
}

#[test]
fn fio_output_goes_to_the_file_and_the_normal_format_too() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    let out = dir.path().join("out.json");
    let base = |o: &mut assert_cmd::Command| {
        o.current_dir(dir.path())
            .arg("fio")
            .args(["--name=w", "--rw=write", "--bs=64k", "--size=1m"])
            .arg(format!("--filename={}", file.display()));
    };
    let mut c = iolab();
    base(&mut c);
    let o = c
        .arg("--output-format=json")
        .arg(format!("--output={}", out.display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!(v.is_object());
    assert!(serde_json::from_slice::<Value>(&o.stdout).is_err());
    // The normal format to --output: iolab's terminal text, in the file.
    let txt = dir.path().join("out.txt");
    let mut c = iolab();
    base(&mut c);
    let o = c
        .arg(format!("--output={}", txt.display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&txt).unwrap();
    assert!(text.contains("w: write 64 KiB"), "{text}");
    assert!(!stdout(&o).contains("w: write"), "{}", stdout(&o));
    // Not over a file iolab did not write.
    std::fs::write(&txt, "mine\n").unwrap();
    let mut c = iolab();
    base(&mut c);
    let o = c
        .arg(format!("--output={}", txt.display()))
        .output()
        .unwrap();
    assert_one_line_bad(&o, "--output");
    assert_eq!(std::fs::read_to_string(&txt).unwrap(), "mine\n");
}

#[test]
fn bad_fio_command_lines_are_one_line_and_exit_2() {
    for (args, needle) in [
        (
            vec!["--name=a", "--rw=read", "--client=sock:/tmp/s"],
            "local socket",
        ),
        (vec!["--server"], "iolab agent --stdio"),
        (vec!["--minimal", "--name=a"], "terse"),
        (vec!["--output-format=terse", "--name=a"], "terse"),
        (vec!["--output-format=xml", "--name=a"], "xml"),
        (vec!["--name=a", "--output"], "--output needs a value"),
        (vec![], "no job"),
        (vec!["--name="], "--name"),
        (
            vec!["--name=a", "--no_such_fio_option=1"],
            "no_such_fio_option",
        ),
        (vec!["--name=a", "--bs=4q"], "--bs=4q"),
        (vec!["--name=a", "--rw", "sideways"], "sideways"),
        (vec!["/nonexistent/job.fio"], "/nonexistent/job.fio"),
        (vec!["-"], "standard input"),
    ] {
        let o = iolab().arg("fio").args(&args).output().unwrap();
        assert_one_line_bad(&o, needle);
    }
}

#[test]
fn fio_version_and_help_exit_0() {
    let o = iolab().args(["fio", "--version"]).output().unwrap();
    assert!(o.status.success());
    assert!(stdout(&o).starts_with("iolab-"), "{}", stdout(&o));
    assert!(stdout(&o).contains("fio"), "{}", stdout(&o));
    let o = iolab().args(["fio", "--help"]).output().unwrap();
    assert!(o.status.success());
    assert!(stdout(&o).contains("--output-format"), "{}", stdout(&o));
}

#[test]
fn fio_command_line_with_a_job_file_section_and_parse_only() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("two.fio");
    let f = dir.path().join("f");
    std::fs::write(
        &job,
        format!(
            "[one]\nrw=read\nfilename={0}\nsize=1m\nioengine=psync\n[two]\nrw=write\nfilename={0}\nsize=1m\nioengine=psync\n",
            f.display()
        ),
    )
    .unwrap();
    // Global options before the job file apply to its jobs; --section
    // picks one; --parse-only plans without touching the file.
    let o = iolab()
        .arg("fio")
        .args(["--bs=8k", "--section=two", "--parse-only"])
        .arg(&job)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("two: write 8 KiB"), "{out}");
    assert!(!out.contains("one: read"), "{out}");
    assert!(!f.exists());
    // --readonly refuses a job that writes.
    let o = iolab()
        .arg("fio")
        .args(["--readonly", "--section=two", "--parse-only"])
        .arg(&job)
        .output()
        .unwrap();
    assert_one_line_bad(&o, "two");
}

#[test]
fn fio_logs_are_written_where_the_job_asks_and_never_over_a_foreign_file() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.fio");
    std::fs::write(
        &job,
        fio_job(
            &dir.path().join("f"),
            "write_bw_log=mine\nwrite_iops_log=ops",
        ),
    )
    .unwrap();
    let run = || {
        iolab()
            .current_dir(dir.path())
            .arg("run")
            .arg(&job)
            .arg("-q")
            .output()
            .unwrap()
    };
    let o = run();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let names = |prefix: &str| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(prefix) && n.ends_with(".log"))
            .collect();
        v.sort();
        v
    };
    let bw = names("mine_bw");
    assert_eq!(bw.len(), 1, "{:?}", names(""));
    assert_eq!(names("ops_iops").len(), 1, "{:?}", names(""));
    // fio's line: time, value, direction, bs, offset[, prio...].
    let text = std::fs::read_to_string(dir.path().join(&bw[0])).unwrap();
    let first = text
        .lines()
        .next()
        .unwrap_or_else(|| panic!("empty {}", bw[0]));
    assert!(first.split(',').count() >= 5, "{first}");
    // Its own earlier log is replaced; a file iolab did not write is not.
    let o = run();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Checked before the run: refused on one line, nothing run.
    std::fs::write(dir.path().join(&bw[0]), "someone else's\n").unwrap();
    std::fs::remove_file(dir.path().join("f")).unwrap();
    let o = run();
    assert_one_line_bad(&o, &bw[0]);
    assert!(!dir.path().join("f").exists(), "the job ran");
    assert_eq!(
        std::fs::read_to_string(dir.path().join(&bw[0])).unwrap(),
        "someone else's\n"
    );
}

#[test]
fn command_line_jobs_run_with_the_first_job_file_and_later_files_after() {
    // fio stonewalls the second and later job files only: the command
    // line's jobs run together with the first file's.
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, job: &str| {
        let p = dir.path().join(name);
        let f = dir.path().join(format!("{job}.dat"));
        std::fs::write(
            &p,
            format!("[{job}]\nrw=read\nfilename={}\nsize=1m\n", f.display()),
        )
        .unwrap();
        p
    };
    let (one, two) = (file("one.fio", "one"), file("two.fio", "two"));
    let o = iolab()
        .arg("fio")
        .args(["--name=x", "--rw=read", "--size=1m", "--parse-only"])
        .arg(format!("--filename={}", dir.path().join("x.dat").display()))
        .arg(&one)
        .arg(&two)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("plan: 2 runs"), "{out}");
    assert!(out.contains("2 workloads together"), "{out}");
    let x = out.find("- x: read").unwrap();
    let one_at = out.find("- one: read").unwrap();
    let two_at = out.find("two: read").unwrap();
    assert!(x < one_at && one_at < two_at, "{out}");
    assert!(!out[two_at - 4..two_at].contains("- "), "{out}");
}

#[test]
fn fio_json_goes_through_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let job = dir.path().join("j.fio");
    std::fs::write(&job, fio_job(&dir.path().join("f"), "")).unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let o = iolab()
        .current_dir(dir.path())
        .arg("run")
        .arg(&job)
        .arg("-q")
        .arg("--fio-json")
        .arg(&fifo)
        .output()
        .unwrap();
    if !o.status.success() {
        // Release the reader, which waits for a writer (none if no one is
        // left reading: O_NONBLOCK fails at once then).
        use std::os::unix::fs::OpenOptionsExt;
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo);
    }
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = reader.join().unwrap();
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(v["jobs"][0]["jobname"], "w", "{v:#}");
}

/// `iolab fio ARGS --output-format=json` in `dir`: fio's JSON.
fn fio_json_of(dir: &Path, args: &[&str]) -> Value {
    let o = iolab()
        .current_dir(dir)
        .arg("fio")
        .args(args)
        .arg("--output-format=json")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// fio's amounts, as fio 3.33 and 3.42 do them (found by review against
/// real fio): a mix of block sizes ends exactly on `size` (fio cuts the
/// last I/O), `number_ios` counts per loop, `size` never exceeds what
/// `nrfiles` x `filesize` hold, and a write-only job writes its new file
/// once (no prefill: fio lays files out only for jobs that read).
#[test]
fn fio_amounts_follow_fio() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bytes = |v: &Value| {
        v["jobs"][0]["read"]["io_bytes"].as_u64().unwrap()
            + v["jobs"][0]["write"]["io_bytes"].as_u64().unwrap()
    };
    let mix = [
        "--name=m",
        "--filename=m",
        "--rw=randrw",
        "--bssplit=4k/50:64k/50",
    ];
    let one = fio_json_of(d, &[&mix[..], &["--size=512k"]].concat());
    assert_eq!(bytes(&one), 512 << 10);
    let two = fio_json_of(d, &[&mix[..], &["--size=512k", "--numjobs=2"]].concat());
    assert_eq!(bytes(&two), 1 << 20);
    let loops = fio_json_of(
        d,
        &[
            "--name=l",
            "--filename=l",
            "--rw=read",
            "--size=4m",
            "--number_ios=10",
            "--loops=3",
        ],
    );
    assert_eq!(loops["jobs"][0]["read"]["total_ios"], 30);
    let capped = fio_json_of(
        d,
        &[
            "--name=c",
            "--directory=.",
            "--rw=read",
            "--bs=4k",
            "--nrfiles=2",
            "--filesize=128k",
            "--size=1m",
        ],
    );
    assert_eq!(capped["jobs"][0]["read"]["io_bytes"], 256 << 10);
    let doc = d.join("w.json");
    let o = iolab()
        .current_dir(d)
        .args(["fio", "--name=w", "--filename=w", "--rw=write", "--size=1m"])
        .arg(format!("--json={}", doc.display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&doc).unwrap()).unwrap();
    let t = &v["runs"][0]["targets"][0];
    assert_eq!(t["created"], true, "{t}");
    assert_eq!(t["prefilled_bytes"], 0, "a write-only job prefilled: {t}");
}

/// fio --readonly creates and extends nothing: a missing file is one line,
/// exit 2, and is still missing.
#[test]
fn readonly_never_creates_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let o = iolab()
        .current_dir(dir.path())
        .args([
            "fio",
            "--readonly",
            "--name=x",
            "--filename=new",
            "--rw=read",
            "--size=64k",
        ])
        .output()
        .unwrap();
    assert_one_line_bad(&o, "does not exist");
    assert!(!dir.path().join("new").exists());
}
