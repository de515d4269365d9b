//! The controller's open-file limit: raised to the hard limit for a
//! fleet that needs it, and a fleet that cannot fit under the hard limit
//! refused with one line before anything starts. Each case runs in a
//! child process (the limit is the whole process's).

mod common;

use common::*;
use iolab_remote::channel::{Channel, Shell};
use iolab_remote::link::Fleet;
use iolab_testutil::require;

/// Run by the tests below in a child process: limits and hosts from
/// IOLAB_TEST_NOFILE ("SOFT HARD HOSTS"), the fake agent from
/// IOLAB_TEST_AGENT; prints "nofile: ok" or "nofile: err LINE".
#[test]
fn nofile_child() {
    let (Ok(spec), Ok(agent)) = (
        std::env::var("IOLAB_TEST_NOFILE"),
        std::env::var("IOLAB_TEST_AGENT"),
    ) else {
        return; // Only as the child of the tests below.
    };
    let v: Vec<u64> = spec.split(' ').map(|w| w.parse().unwrap()).collect();
    let r = libc::rlimit {
        rlim_cur: v[0] as libc::rlim_t,
        rlim_max: v[1] as libc::rlim_t,
    };
    // SAFETY: setrlimit reads the struct it is given (this child only).
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &r) }, 0);
    let ch = Channel {
        shell: Shell::from_template("env IOLAB_HOST={host}").unwrap(),
        agent_path: Some(agent),
        push: false,
    };
    let names: Vec<String> = (0..v[2]).map(|i| format!("c{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    match Fleet::connect(&hosts(&names), &ch, &quick(5000)) {
        Ok(f) => {
            f.close();
            println!("\nnofile: ok");
        }
        Err(e) => println!("\nnofile: err {e}"),
    }
}

/// What the child said, given "SOFT HARD HOSTS".
fn child(spec: &str, fake: &Fake) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "nofile_child", "--nocapture", "--test-threads=1"])
        .env("IOLAB_TEST_NOFILE", spec)
        .env("IOLAB_TEST_AGENT", fake.path_str())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .find_map(|l| l.strip_prefix("nofile: "))
        .unwrap_or_else(|| panic!("{text}{}", String::from_utf8_lossy(&out.stderr)))
        .to_string()
}

#[test]
fn a_low_soft_limit_is_raised_for_the_fleet() {
    require!(python().is_some(), "needs python3 (the fake agent)");
    let fake = Fake::ours("normal");
    assert_eq!(child("24 4096 8", &fake), "ok");
}

#[test]
fn a_fleet_above_the_hard_limit_is_refused_before_connecting() {
    require!(python().is_some(), "needs python3 (the fake agent)");
    let fake = Fake::ours("normal");
    let said = child("24 48 8", &fake);
    assert!(said.starts_with("err 8 hosts need about "), "{said}");
    assert!(
        said.contains("may open 48 (ulimit -n, hard limit 48)"),
        "{said}"
    );
}
