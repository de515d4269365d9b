//! The binary's exit codes, in a module of their own so that the commands
//! do not import them back from `cli`: 0 success; 1 the run completed but
//! found I/O errors or could not finish; 2 bad input or could not start;
//! 130 interrupted.

/// Bad input (flags, job files, results files) or could not start.
pub const EXIT_BAD_INPUT: u8 = 2;

/// Say what is wrong on one stderr line and give the bad-input exit code.
pub fn bad_input(msg: &str) -> std::process::ExitCode {
    eprintln!("iolab: {msg}");
    std::process::ExitCode::from(EXIT_BAD_INPUT)
}
