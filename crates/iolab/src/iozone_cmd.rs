//! `iolab iozone [iozone options]`: iozone's command line
//! (`iolab_plan::study::iozone_cli`) run as iolab's iozone study, with
//! iozone's output on stdout (`iolab_report::study::iozone_text`): the
//! header block first, each row of the table as its cell finishes (each
//! test's section in throughput mode), then the closing lines and `-R`'s
//! report. iolab's own result document is written with `--json FILE`.

use crate::exit::bad_input;
use iolab_plan::study::iozone_cli::{self, USAGE};
use iolab_report::study::iozone_text::{self as text, Layout};
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// iozone's options (-a, -i N, -s SIZE, -r SIZE, -f FILE, -t N, -F FILE..., -n, -g, -y, -q, -z, -I, -o, -e, -c, -w, -+n, -R) and iolab's --json FILE, --force, --dry-run; `iolab iozone -h` lists them
    #[arg(
        value_name = "IOZONE_OPTIONS",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        num_args = 0..
    )]
    pub args: Vec<String>,
}

/// The local time as iozone prints it (ctime's layout, without the
/// newline): `Wed Nov 25 03:50:35 2026`.
fn now_text() -> String {
    // SAFETY: time, localtime_r and strftime write only into the buffers
    // given; the format is a NUL-terminated literal.
    unsafe {
        let t = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return iolab_report::model_time_now();
        }
        let mut buf = [0u8; 64];
        let n = libc::strftime(
            buf.as_mut_ptr().cast(),
            buf.len(),
            c"%a %b %e %H:%M:%S %Y".as_ptr(),
            &tm,
        );
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }
}

fn out(s: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(s.as_bytes());
    let _ = o.flush();
}

pub fn run(args: Args) -> ExitCode {
    let cmd = match iozone_cli::parse(&args.args) {
        Ok(Some(c)) => c,
        Ok(None) => {
            out(USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => return bad_input(&e),
    };
    let planned = match iolab_plan::study::iozone::plan(&cmd.matrix) {
        Ok(p) => p,
        Err(e) => return bad_input(&e),
    };
    let plan = match planned.build() {
        Ok(p) => p,
        Err(e) => return bad_input(&e.message),
    };
    if cmd.matrix.plan.dry_run {
        return crate::study::dry_run(&planned, &plan);
    }
    let layout = cmd.layout;
    let command = format!("iolab iozone {}", args.args.join(" "));
    out(&text::header(
        &layout,
        env!("CARGO_PKG_VERSION"),
        &now_text(),
        command.trim_end(),
    ));
    if layout.throughput.is_none() {
        out(&text::table_head(&layout));
    }
    let output = crate::run::Output {
        json: cmd.json,
        quiet: true,
        findings_log: None,
        temp_file: None,
        force: cmd.force,
        silent: true,
        fio: None,
        style: Default::default(),
    };
    let cells = cmd.matrix.cells();
    let mut next = 0;
    let mut footer = String::new();
    let (code, _) = crate::study::execute(planned, plan, output, &mut |doc| {
        progress(doc, &layout, &cells, &mut next);
        footer = text::footer(&doc.runs, &layout);
    });
    if code == ExitCode::from(130) {
        // As iozone's signal handler says; the files are gone already.
        out("\niozone: interrupted\n\n");
        return code;
    }
    if footer.is_empty() {
        footer = text::footer(&[], &layout);
    }
    out(&footer);
    code
}

/// After a run: the rows of the cells that have finished, or the
/// throughput section of the test that just ran.
fn progress(doc: &iolab_report::ResultDoc, l: &Layout, cells: &[(u64, u64)], next: &mut usize) {
    if let Some(n) = l.throughput {
        if let Some(s) = doc.runs.last().and_then(|r| text::throughput_section(r, n)) {
            out(&s);
        }
        return;
    }
    while let Some(&(f, r)) = cells.get(*next) {
        match text::finished_row(&doc.runs, f, r, l) {
            Some(row) => {
                out(&row);
                *next += 1;
            }
            None => break,
        }
    }
}
