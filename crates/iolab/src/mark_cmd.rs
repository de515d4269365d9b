//! `iolab mark LABEL`: add a timestamped event to the running `iolab run`
//! or `iolab monitor` of this user, through its socket (crate::marks,
//! docs/monitor.md). Finds the one running iolab, or the one `--pid`
//! names; anything else is one line on stderr and exit code 2.

use crate::exit::EXIT_BAD_INPUT;
use crate::marks::{self, Reply};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// What happened, e.g. "controller A failed" (several words are joined with spaces; at most 200 bytes)
    #[arg(value_name = "LABEL", required = true, num_args = 1..)]
    pub label: Vec<String>,

    /// The iolab process to mark (needed when several are running)
    #[arg(long, value_name = "PID")]
    pub pid: Option<u32>,
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("iolab: {msg}");
    ExitCode::from(EXIT_BAD_INPUT)
}

pub fn run(args: Args) -> ExitCode {
    let label = args.label.join(" ");
    if let Err(e) = marks::check_label(&label) {
        return fail(&e);
    }
    let dir = marks::runtime_dir();
    let pid = match find(&dir, args.pid) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    match send(&marks::socket_path(&dir, pid), &label) {
        Ok(Reply::At(s, name)) => {
            outln!("marked '{label}' at {s:.3} s into run {name} (pid {pid})");
            ExitCode::SUCCESS
        }
        Ok(Reply::BeforeStart(name)) => {
            outln!("marked '{label}' before run {name} started its clock (at 0 s; pid {pid})");
            ExitCode::SUCCESS
        }
        Ok(Reply::Refused(why)) => fail(&format!("iolab {pid} refused the mark: {why}")),
        Err(e) => fail(&e),
    }
}

/// The pid to mark: `--pid`'s, else the only one running.
fn find(dir: &Path, pid: Option<u32>) -> Result<u32, String> {
    if dir.exists() {
        // A socket in a directory others can write to could be anyone's.
        marks::check_dir(dir)?;
    }
    let running = marks::live_sockets(dir);
    if let Some(p) = pid {
        if running.contains(&p) {
            return Ok(p);
        }
        let what = if marks::alive(p) {
            "is not a running iolab run or monitor"
        } else {
            "does not exist"
        };
        return Err(format!(
            "process {p} {what} (no mark socket {}); see the pids in {}",
            marks::socket_path(dir, p).display(),
            dir.display()
        ));
    }
    match running.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!(
            "no running iolab run or monitor of this user (no socket in {}); start one, or give --pid",
            dir.display()
        )),
        many => {
            let list: Vec<String> = many.iter().map(u32::to_string).collect();
            Err(format!(
                "several iolab processes are running (pids {}); choose one with --pid",
                list.join(", ")
            ))
        }
    }
}

/// Send one mark and read the answer.
fn send(path: &Path, label: &str) -> Result<Reply, String> {
    let p = path.display();
    let mut s = UnixStream::connect(path).map_err(|e| {
        if e.raw_os_error() == Some(libc::ECONNREFUSED) {
            // Nobody listens: the process that made it is gone or is not
            // iolab (its pid was reused).
            let _ = std::fs::remove_file(path);
            format!("{p} is a stale socket (nobody listens; removed); is the run still going?")
        } else {
            format!("cannot connect to {p}: {e}")
        }
    })?;
    let t = Some(Duration::from_secs(5));
    let _ = s.set_read_timeout(t);
    let _ = s.set_write_timeout(t);
    s.write_all(marks::request(label).as_bytes())
        .map_err(|e| format!("{p}: {e}"))?;
    let mut buf = Vec::new();
    (&mut s)
        .take(4096)
        .read_to_end(&mut buf)
        .map_err(|e| format!("no answer from {p}: {e}"))?;
    let text = String::from_utf8_lossy(&buf);
    Reply::parse(&text).ok_or_else(|| format!("{p} answered something that is not a mark reply"))
}
