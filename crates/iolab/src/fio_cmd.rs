//! `iolab fio`: fio's command line, so that a script that calls fio can
//! call `iolab fio` instead (docs/fio.md, "Command line").
//!
//! fio reads its arguments with `getopt_long_only`: `--opt=value` (or
//! `-opt=value`), `--opt value` for an option that takes a value, a bare
//! `--opt` for the options that take none (`time_based`, `norandommap`,
//! ...). Job options before the first `--name=` are global; each `--name=X`
//! starts job X; the other arguments are job files, read after the
//! command line's jobs, in order. fio's own flags that matter here are
//! honoured (`--output-format`, `--output`, `--section`, `--readonly`,
//! `--parse-only`, `--version`, `--help`), those that only tune fio's
//! terminal are accepted and ignored, the rest are refused on one line.
//! The job options become fio job text (origin `command line`) that
//! `iolab_jobfile::frontend::load_text` reads like any fio job file; the
//! runs then go through `iolab run`'s path (crate::run).

use crate::cli::RunArgs;
use crate::exit::bad_input;
use crate::fio_out::{FioDest, FioOut};
use iolab_jobfile::frontend::{InputFormat, LoadOptions, Loaded};
use iolab_spec::HostSpec;

/// The origin of the job text made from the command line.
const COMMAND_LINE: &str = "command line";
use std::path::PathBuf;
use std::process::ExitCode;

/// `iolab fio --help` and the manual page: what is taken from fio's
/// command line and what iolab adds.
pub const AFTER_HELP: &str = "fio's command line:

  iolab fio [FIO OPTIONS] [--name=JOB [JOB OPTIONS]]... [JOB FILE]...

Job options (--rw=randread, --bs=4k, --size=1g, --filename=F, ...) before the first \
--name= are global; --name=NAME starts a job; job files are read after the command \
line's jobs, in order. A value follows '=' or comes as the next argument; options \
without a value (--time_based, --group_reporting) may be given bare.

fio's flags: --output-format=normal|json|json+ (with json and no --output, standard \
output carries only fio's JSON and iolab's own lines go to stderr), --output=FILE, \
--section=NAME (repeatable), --readonly, --parse-only, --version, --help; --eta, \
--eta-newline, --eta-interval, --debug, --alloc-size, --max-jobs, --warnings-fatal \
and --aux-path are accepted and ignored. --client=HOST (repeatable) or --client=FILE \
(a list of hosts) runs the jobs on those hosts through ssh (docs/multi-host.md); \
terse output (--minimal) and fio's server (--server, --daemonize) are refused.

iolab's own: --destroy-data-on=PATH (a device or file whose data the jobs may \
destroy, as for iolab run), --json=FILE (iolab's result document too), --force \
(outputs may replace a file iolab did not write), --ignore-unsupported, --yes.

  iolab fio --name=a --rw=randread --bs=4k --size=16m --filename=/tmp/f \\
    --output-format=json | jq '.jobs[0].read.iops'";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// fio's options, job options and job files, as fio takes them (see below)
    #[arg(
        value_name = "FIO ARGUMENTS",
        allow_hyphen_values = true,
        trailing_var_arg = true,
        num_args = 0..
    )]
    pub args: Vec<String>,
}

/// The output formats asked for (`--output-format`, comma-separated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Formats {
    pub normal: bool,
    pub json: bool,
    pub plus: bool,
}

/// A job option: its name and its value (`None` when given bare).
pub type Opt = (String, Option<String>);

/// A fio command line, read.
#[derive(Debug)]
pub struct FioLine {
    /// Job options before the first `--name`.
    pub global: Vec<Opt>,
    /// Each `--name=X` and its options.
    pub jobs: Vec<(String, Vec<Opt>)>,
    pub files: Vec<PathBuf>,
    pub formats: Formats,
    pub output: Option<PathBuf>,
    pub sections: Vec<String>,
    pub readonly: bool,
    pub parse_only: bool,
    /// iolab's own flags.
    pub json: Option<PathBuf>,
    pub force: bool,
    pub yes: bool,
    pub ignore_unsupported: bool,
    pub destroy_data_on: Vec<String>,
    /// fio's `--client=HOST` (or a host list file), each with the job
    /// files given after it (fio sends those to that client only).
    pub clients: Vec<(String, Vec<PathBuf>)>,
    /// Flags accepted and ignored, to say so once.
    pub ignored: Vec<String>,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Parsed {
    Run(Box<FioLine>),
    Help,
    Version,
}

/// fio's options that take no value (fio's `FIO_OPT_STR_SET` options,
/// given bare on its command line; options.c and the engines' options).
const BARE: &[&str] = &[
    "bs_unaligned",
    "norandommap",
    "time_based",
    "verify_only",
    "exitall",
    "exitall_on_error",
    "stonewall",
    "wait_for_previous",
    "new_group",
    "thread",
    "group_reporting",
    "zero_buffers",
    "refill_buffers",
    "hipri",
    "fixedbufs",
    "registerfiles",
    "sqthread_poll",
    "userspace_reap",
];

/// fio's own flags that only tune its terminal or its memory: accepted
/// and ignored (whether they take a value).
const IGNORED: &[(&str, bool)] = &[
    ("eta", true),
    ("eta-interval", true),
    ("eta-newline", true),
    ("debug", true),
    ("alloc-size", true),
    ("max-jobs", true),
    ("warnings-fatal", false),
    ("aux-path", true),
];

/// fio's own flags iolab has no counterpart for, with what to do instead.
fn refused(flag: &str) -> Option<String> {
    let why = match flag {
        "server" | "daemonize" => {
            "iolab runs no server: the controller starts `iolab agent --stdio` over ssh; see docs/multi-host.md".to_string()
        }
        "remote-config" => {
            "iolab sends the jobs from the controller; give the job file on this host's command line (docs/multi-host.md)".to_string()
        }
        "trigger" | "trigger-file" | "trigger-timeout" | "trigger-remote" => {
            "iolab runs no commands on a trigger; stop a run with Ctrl-C or its duration".to_string()
        }
        "minimal" | "append-terse" | "terse-version" => {
            "iolab does not write fio's terse output; use --output-format=json".to_string()
        }
        "status-interval" => {
            "iolab writes one JSON document at the end; follow a run with iolab run --json FILE, kept up to date while it runs".to_string()
        }
        "bandwidth-log" | "latency-log" => {
            "give the job write_bw_log=NAME or write_lat_log=NAME instead".to_string()
        }
        "cmdhelp" | "enghelp" | "showcmd" | "crctest" | "memcpytest" | "cpuclock-test"
        | "inflate-log" | "merge-blktrace-only" | "idle-prof" => {
            "it is one of fio's own tools; run fio for it (docs/fio.md lists what iolab takes)"
                .to_string()
        }
        _ => return None,
    };
    Some(format!("fio's --{flag} is not supported: {why}"))
}

fn formats(v: &str) -> Result<Formats, String> {
    let mut f = Formats {
        normal: false,
        json: false,
        plus: false,
    };
    for part in v.split(',') {
        match part.trim() {
            "normal" => f.normal = true,
            "json" => f.json = true,
            "json+" => {
                f.json = true;
                f.plus = true;
            }
            "terse" => {
                return Err("--output-format=terse: iolab does not write fio's terse output; use --output-format=json".into())
            }
            other => {
                return Err(format!(
                    "--output-format={other} is not one of fio's formats iolab writes; give normal, json or json+"
                ))
            }
        }
    }
    Ok(f)
}

/// Read a fio command line (the arguments after `iolab fio`).
pub fn parse(argv: &[String]) -> Result<Parsed, String> {
    let mut l = FioLine {
        global: Vec::new(),
        jobs: Vec::new(),
        files: Vec::new(),
        formats: Formats {
            normal: true,
            json: false,
            plus: false,
        },
        output: None,
        sections: Vec::new(),
        readonly: false,
        parse_only: false,
        json: None,
        force: false,
        yes: false,
        ignore_unsupported: false,
        destroy_data_on: Vec::new(),
        clients: Vec::new(),
        ignored: Vec::new(),
    };
    let mut it = argv.iter().peekable();
    while let Some(a) = it.next() {
        if a == "--" {
            for f in it.by_ref() {
                job_file(&mut l, f);
            }
            break;
        }
        let Some(body) = a.strip_prefix("--").or_else(|| a.strip_prefix('-')) else {
            job_file(&mut l, a);
            continue;
        };
        if body.is_empty() {
            // fio reads `-` as a job file on standard input: iolab does not.
            return Err(
                "'-' (a job file on standard input) is not supported; give the job file's path"
                    .into(),
            );
        }
        let (key, inline) = match body.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (body, None),
        };
        // A value: after '=', else the next argument (fio's getopt takes
        // it for an option that needs one).
        let value = |it: &mut std::iter::Peekable<std::slice::Iter<String>>| {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("--{key} needs a value: --{key}=VALUE"))
        };
        match key {
            "help" | "h" => return Ok(Parsed::Help),
            "version" | "v" => return Ok(Parsed::Version),
            "output" | "o" => l.output = Some(PathBuf::from(value(&mut it)?)),
            "output-format" => l.formats = formats(&value(&mut it)?)?,
            "section" => l.sections.push(value(&mut it)?),
            "readonly" => l.readonly = true,
            "parse-only" => l.parse_only = true,
            "json" => l.json = Some(PathBuf::from(value(&mut it)?)),
            "force" => l.force = true,
            "yes" => l.yes = true,
            "ignore-unsupported" => l.ignore_unsupported = true,
            "destroy-data-on" => l.destroy_data_on.push(value(&mut it)?),
            "client" => l.clients.push((value(&mut it)?, Vec::new())),
            _ => {
                if let Some(&(_, takes)) = IGNORED.iter().find(|(f, _)| *f == key) {
                    if takes && inline.is_none() {
                        value(&mut it)?;
                    }
                    l.ignored.push(format!("--{key}"));
                    continue;
                }
                if let Some(msg) = refused(key) {
                    return Err(msg);
                }
                job_option(&mut l, key, inline, &mut it)?;
            }
        }
    }
    Ok(Parsed::Run(Box::new(l)))
}

/// A job file: after a `--client`, that client's (fio's form), else every
/// job's.
fn job_file(l: &mut FioLine, f: &str) {
    match l.clients.last_mut() {
        Some((_, files)) => files.push(PathBuf::from(f)),
        None => l.files.push(PathBuf::from(f)),
    }
}

/// A job option: `--name=X` starts job X, any other goes to the current
/// job (the global options before the first `--name`).
fn job_option(
    l: &mut FioLine,
    key: &str,
    inline: Option<String>,
    it: &mut std::iter::Peekable<std::slice::Iter<String>>,
) -> Result<(), String> {
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!(
            "--{key} is not a fio option; give --OPTION=VALUE with one of fio's job options (docs/fio.md)"
        ));
    }
    // fio's getopt takes the next argument as the value of an option that
    // needs one; iolab does so unless that argument is itself a flag, so a
    // bare boolean (`--direct`) is read as set, not as `--direct=--rw=read`.
    let value = match inline {
        Some(v) => Some(v),
        None if BARE.contains(&key) => None,
        None => match it.peek() {
            Some(n) if !n.starts_with('-') => it.next().cloned(),
            _ => None,
        },
    };
    if let Some(v) = &value {
        if v.contains(['\n', '\r']) {
            return Err(format!("--{key}: a value on the command line is one line"));
        }
        // The options become job text, where ';' and '#' start a comment:
        // the value would be cut short (another file name, say), so it is
        // refused rather than changed.
        if v.contains([';', '#']) {
            return Err(format!(
                "--{key}={v}: iolab fio does not take ';' or '#' in a value (fio's job text cuts a comment there); rename the file or directory"
            ));
        }
    }
    if key == "name" {
        let name = value.ok_or("--name needs a value: --name=JOB starts a job")?;
        if name.is_empty() || name.contains([']', '[']) {
            return Err(format!(
                "--name={name}: a job's name is not empty and has no '[' or ']'"
            ));
        }
        l.jobs.push((name, Vec::new()));
        return Ok(());
    }
    let opt = (key.to_ascii_lowercase(), value);
    match l.jobs.last_mut() {
        Some((_, opts)) => opts.push(opt),
        None => l.global.push(opt),
    }
    Ok(())
}

/// The command line's jobs as fio job text: `[global]` with the options
/// before the first `--name`, then a section per `--name`; and for each
/// line of it, the argument it came from (for messages). `None` when the
/// command line has no job options (only job files).
pub fn job_text(l: &FioLine) -> Option<(String, Vec<String>)> {
    if l.global.is_empty() && l.jobs.is_empty() {
        return None;
    }
    let mut t = String::new();
    let mut args = Vec::new();
    let mut section = |name: &str, opts: &[Opt]| {
        t.push_str(&format!("[{name}]\n"));
        args.push(format!("--name={name}"));
        for (k, v) in opts {
            let line = match v {
                Some(v) => format!("{k}={v}"),
                None => k.clone(),
            };
            t.push_str(&line);
            t.push('\n');
            args.push(format!("--{line}"));
        }
    };
    if !l.global.is_empty() {
        section("global", &l.global);
    }
    for (name, opts) in &l.jobs {
        section(name, opts);
    }
    Some((t, args))
}

/// A message about the command line's job text (`command line:N: ...`)
/// with the argument line N came from instead of the line number.
pub fn locate(msg: &str, args: &[String]) -> String {
    const AT: &str = "command line:";
    let Some(i) = msg.find(AT) else {
        return msg.to_string();
    };
    let rest = &msg[i + AT.len()..];
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let arg = rest[..digits]
        .parse::<usize>()
        .ok()
        .and_then(|n| args.get(n.wrapping_sub(1)));
    match arg {
        Some(a) => format!("{}command line ({a}){}", &msg[..i], &rest[digits..]),
        None => msg.to_string(),
    }
}

/// `frontend::load_text`, but the first job file after the command line
/// starts without a stonewall: fio numbers its job files from the first
/// one given, apart from the command line's jobs, and stonewalls only the
/// second and later, so the command line's jobs run with the first
/// file's (init.c: `parse_jobs_ini(file, 0, i, ...)`).
fn load(files: &[(String, String)], lo: &LoadOptions) -> Result<Loaded, String> {
    use iolab_jobfile::fio::{map::map, parse::parse_files};
    let mut parsed = parse_files(files, &lo.vars).map_err(|e| e.0)?;
    if files.len() > 1 && files[0].0 == COMMAND_LINE {
        let first_file = &files[1].0;
        if let Some(job) = parsed.jobs.iter_mut().find(|j| &j.file == first_file) {
            // The stonewall the parser puts at the section's own line.
            let (file, line) = (job.file.clone(), job.line);
            job.options.retain(|o| {
                !(o.key == "stonewall" && o.value.is_none() && o.file == file && o.line == line)
            });
        }
    }
    map(&parsed, lo).map_err(|e| e.0)
}

/// The hosts of fio's `--client` flags (docs/fio.md "Several hosts")
/// and the notes to print; the job files given after a `--client` join
/// the job files, as iolab runs the same jobs on every host (job files
/// that differ between clients are refused).
fn clients(l: &mut FioLine) -> Result<(Vec<HostSpec>, Vec<String>), String> {
    use iolab_jobfile::fio::client::{parse_client, parse_client_list};
    let mut hosts = Vec::new();
    let mut ports = Vec::new();
    let mut lists: Vec<(&str, &Vec<PathBuf>)> = Vec::new();
    for (v, files) in &l.clients {
        let found = if std::path::Path::new(v).is_file() {
            let text = iolab_target::read_text_bounded(std::path::Path::new(v), 1 << 20)
                .map_err(|e| format!("--client={v}: {e}"))?;
            parse_client_list(&text).map_err(|e| format!("--client={v}: {e}"))?
        } else {
            vec![parse_client(v)?]
        };
        for (h, port) in found {
            if let Some(p) = port {
                ports.push(format!("{},{p}", h.name));
            }
            iolab_spec::hosts::add_host(&mut hosts, h).map_err(|e| format!("--client={v}: {e}"))?;
        }
        if !files.is_empty() && !lists.iter().any(|(_, f)| *f == files) {
            lists.push((v, files));
        }
    }
    if let [(a, fa), (b, fb), ..] = lists.as_slice() {
        let show = |f: &Vec<PathBuf>| {
            f.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        return Err(format!(
            "fio's per-client job files ({} after --client={a}, {} after --client={b}) are not supported: iolab runs the same jobs on every host; give the --client flags, then the job files once",
            show(fa),
            show(fb)
        ));
    }
    let extra: Vec<PathBuf> = lists.first().map(|(_, f)| (*f).clone()).unwrap_or_default();
    l.files.extend(extra);
    let mut notes = Vec::new();
    if !ports.is_empty() {
        notes.push(format!(
            "fio's server port is not used ({}): iolab starts `iolab agent --stdio` over ssh, on ssh's port (set in ~/.ssh/config, or HOST:PORT in --hosts-file)",
            ports.join(" ")
        ));
    }
    if !hosts.is_empty() {
        notes.push("fio's --client runs put each server's address before the name of a file under directory= (unique_filename); iolab uses the same names on every host, so on a shared file system the hosts share each file".to_string());
    }
    Ok((hosts, notes))
}

fn help() -> ExitCode {
    outln!(
        "iolab fio: fio's job options, job files and flags, run by iolab (docs/fio.md)\n\n{AFTER_HELP}"
    );
    ExitCode::SUCCESS
}

/// `iolab fio`.
pub fn run(args: Args) -> ExitCode {
    let l = match parse(&args.args) {
        Ok(Parsed::Run(l)) => l,
        Ok(Parsed::Help) => return help(),
        Ok(Parsed::Version) => {
            outln!(
                "iolab-{}: speaks fio's job files, command line and JSON (docs/fio.md)",
                env!("CARGO_PKG_VERSION")
            );
            return ExitCode::SUCCESS;
        }
        Err(e) => return bad_input(&e),
    };
    let mut l = l;
    let (hosts, client_notes) = match clients(&mut l) {
        Ok(x) => x,
        Err(e) => return bad_input(&e),
    };
    let mut files: Vec<(String, String)> = Vec::new();
    let mut line_args = Vec::new();
    if let Some((t, a)) = job_text(&l) {
        files.push((COMMAND_LINE.to_string(), t));
        line_args = a;
    }
    for f in &l.files {
        match iolab_jobfile::read_job_text(f) {
            Ok(t) => files.push((f.display().to_string(), t)),
            Err(e) => return bad_input(&e.0),
        }
    }
    if files.is_empty() {
        return bad_input(
            "no job: give --name=NAME with job options, or a fio job file; see 'iolab fio --help'",
        );
    }
    let lo = LoadOptions {
        format: Some(InputFormat::Fio),
        vars: Vec::new(),
        ignore_unsupported: l.ignore_unsupported,
        sections: l.sections.clone(),
        readonly: l.readonly,
        ..Default::default()
    };
    let mut loaded = match load(&files, &lo) {
        Ok(x) => x,
        Err(e) => return bad_input(&locate(&e, &line_args)),
    };
    loaded.hosts = hosts;
    loaded.notes.extend(client_notes);
    if !l.ignored.is_empty() {
        loaded.notes.push(format!(
            "fio's {} only tune{} fio's own terminal or memory: ignored",
            l.ignored.join(", "),
            if l.ignored.len() == 1 { "s" } else { "" }
        ));
    }
    let mut ra = RunArgs {
        parse_only: l.parse_only,
        json: l.json.clone(),
        force: l.force,
        ..Default::default()
    };
    ra.plan.yes = l.yes;
    ra.opts.destroy_data_on = l.destroy_data_on.clone();
    for r in loaded.runs.iter_mut() {
        r.overrides = ra.opts.clone();
    }
    let (fio, capture) = match outputs(&l) {
        Ok(x) => x,
        Err(e) => return bad_input(&e),
    };
    let code = crate::run::run_loaded(ra, Some(loaded), fio);
    match capture {
        Some(c) => c.finish(code),
        None => code,
    }
}

/// Where fio's JSON and iolab's terminal lines go: fio's JSON to
/// `--output` or, without it, to standard output (iolab's lines then go
/// to stderr, so that stdout is only the JSON); the normal format to
/// `--output` is iolab's terminal text, captured and written there.
fn outputs(l: &FioLine) -> Result<(Option<FioOut>, Option<crate::fio_text::Capture>), String> {
    let f = l.formats;
    if l.parse_only {
        return Ok((None, None));
    }
    let fio = match (&l.output, f.json) {
        (Some(p), true) => Some(FioOut {
            dest: FioDest::File {
                flag: "--output",
                path: p.clone(),
            },
            plus: f.plus,
        }),
        (None, true) => {
            let out = if f.normal {
                crate::fio_text::dup_stdout()?
            } else {
                crate::fio_text::stdout_to_stderr()?
            };
            Some(FioOut {
                dest: FioDest::Stdout(out),
                plus: f.plus,
            })
        }
        (_, false) => None,
    };
    let capture = match (&l.output, f.normal && !f.json) {
        (Some(p), true) => Some(crate::fio_text::Capture::start(p, l.force)?),
        _ => None,
    };
    Ok((fio, capture))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(s: &str) -> FioLine {
        let argv: Vec<String> = s.split_whitespace().map(String::from).collect();
        match parse(&argv).unwrap() {
            Parsed::Run(l) => *l,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn globals_jobs_values_and_files_as_fio_reads_them() {
        let l = line(
            "--size=1g -ioengine=libaio --name=a --rw randread --time_based job.fio --direct --bs=4k --name=b --norandommap other.fio",
        );
        let s = |k: &str, v: Option<&str>| (k.to_string(), v.map(String::from));
        assert_eq!(
            l.global,
            vec![s("size", Some("1g")), s("ioengine", Some("libaio"))]
        );
        assert_eq!(l.jobs[0].0, "a");
        assert_eq!(
            l.jobs[0].1,
            vec![
                s("rw", Some("randread")),
                s("time_based", None),
                s("direct", None),
                s("bs", Some("4k"))
            ]
        );
        assert_eq!(l.jobs[1], ("b".to_string(), vec![s("norandommap", None)]));
        assert_eq!(
            l.files,
            vec![PathBuf::from("job.fio"), PathBuf::from("other.fio")]
        );
        let (text, args) = job_text(&l).unwrap();
        assert!(
            text.starts_with("[global]\nsize=1g\nioengine=libaio\n[a]\nrw=randread\ntime_based\n")
        );
        assert_eq!(args[4], "--rw=randread");
        assert_eq!(
            locate("command line:5: rw=x: bad", &args),
            "command line (--rw=randread): rw=x: bad"
        );
    }

    #[test]
    fn clients_and_their_job_files() {
        let mut l = line("--client=h1 a.fio --client=ip:h2,4444 a.fio --parse-only");
        let (hosts, notes) = clients(&mut l).unwrap();
        let names: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, vec!["h1", "h2"]);
        assert_eq!(l.files, vec![PathBuf::from("a.fio")]);
        assert!(notes[0].contains("(h2,4444)"), "{notes:?}");
        // The common form: every --client first, then the job file.
        let mut l = line("--client=h1 --client=h2 a.fio");
        assert_eq!(clients(&mut l).unwrap().0.len(), 2);
        assert_eq!(l.files, vec![PathBuf::from("a.fio")]);
        let mut l = line("--client=h1 a.fio --client=h2 b.fio");
        let e = clients(&mut l).unwrap_err();
        assert!(
            e.starts_with(
                "fio's per-client job files (a.fio after --client=h1, b.fio after --client=h2)"
            ),
            "{e}"
        );
        let mut l = line("--client=h1 --client=h1 a.fio");
        assert!(clients(&mut l).unwrap_err().contains("named twice"));
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("host.list");
        std::fs::write(&list, "h1\nh2 h3\n").unwrap();
        let mut l = line(&format!("--client={} a.fio", list.display()));
        assert_eq!(clients(&mut l).unwrap().0.len(), 3);
    }

    #[test]
    fn fio_flags() {
        let l = line("--output-format=json+,normal --output o.json --section=x --section y --readonly --eta=never --eta-newline 5 --name=a");
        assert_eq!(
            l.formats,
            Formats {
                normal: true,
                json: true,
                plus: true
            }
        );
        assert_eq!(l.output, Some(PathBuf::from("o.json")));
        assert_eq!(l.sections, vec!["x", "y"]);
        assert!(l.readonly);
        assert_eq!(l.ignored, vec!["--eta", "--eta-newline"]);
        assert_eq!(l.jobs.len(), 1);
        assert!(l.global.is_empty());
        let a = |s: &str| vec![s.to_string()];
        assert!(matches!(parse(&a("--version")), Ok(Parsed::Version)));
        assert!(matches!(parse(&a("--help")), Ok(Parsed::Help)));
        assert!(parse(&a("--server"))
            .unwrap_err()
            .contains("iolab agent --stdio"));
        assert!(parse(&a("--daemonize=/tmp/p"))
            .unwrap_err()
            .contains("docs/multi-host.md"));
        assert!(parse(&a("--name=a\nb")).is_err());
        assert!(parse(&a("--rw=read\nbs=1")).is_err());
        assert!(parse(&a("--filename=/tmp/a#b"))
            .unwrap_err()
            .contains("'#'"));
    }
}
