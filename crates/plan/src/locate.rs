//! The line of a job file a planning error is about.

use crate::plan::PlanError;
use std::path::Path;

/// `e`, an error of [`build`](crate::build) for runs read from the job
/// file `job`, with the file and line of the key it is about, when the
/// value came from the file: not when `argv` (the command line) gives
/// the flag.
pub fn locate_in_job_file(e: &PlanError, job: &Path, argv: &[String]) -> String {
    let msg = e.message.as_str();
    let Some(at) = e.at else {
        return msg.to_string();
    };
    // The flag is the first `--name` of the message proper (after the
    // run, workload and parameters it is prefixed with).
    let Some(pos) = msg.find("--") else {
        return msg.to_string();
    };
    let flag: String = msg[pos + 2..]
        .chars()
        .take_while(|c| c.is_ascii_lowercase() || *c == '-')
        .collect();
    if flag.is_empty() {
        return msg.to_string();
    }
    let on_command_line = argv.iter().any(|a| {
        iolab_jobfile::keys_of(&flag).iter().any(|k| {
            let f = format!("--{}", k.replace('_', "-"));
            *a == f || a.starts_with(&format!("{f}="))
        })
    });
    if on_command_line {
        return msg.to_string();
    }
    let Ok(text) = std::fs::read_to_string(job) else {
        return msg.to_string();
    };
    let line = if at.single {
        iolab_jobfile::key_line(&text, &flag, at.run)
    } else {
        iolab_jobfile::run_key_line(&text, &flag, Some(at.run), at.workload)
    };
    match line {
        Some(line) => format!("job file {}: line {line}: {msg}", job.display()),
        None => msg.to_string(),
    }
}
