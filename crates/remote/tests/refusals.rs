//! Connections that fail are one line naming the host as the user named
//! it and saying what to do: ssh's refusals (unknown or changed host key,
//! no key, wrong user, nothing listening), no agent there, another
//! version, a talkative login; and no agent is left running.

mod common;

use common::*;
use iolab_remote::link::Fleet;
use iolab_testutil::sshd::{Broken, Sshd};
use iolab_testutil::{require, require_sshd};
use std::time::Duration;

macro_rules! require_fake {
    () => {
        require_sshd!();
        require!(python().is_some(), "needs python3 (the fake agent)");
    };
}

fn refused(ch: &iolab_remote::channel::Channel, names: &[&str]) -> String {
    match Fleet::connect(&hosts(names), ch, &quick(5000)) {
        Ok(_) => panic!("connected"),
        Err(e) => {
            assert!(!e.contains('\n'), "not one line: {e}");
            e
        }
    }
}

#[test]
fn ssh_refusals_are_one_line_each() {
    require_fake!();
    let sshd = Sshd::start(&["h1"]).unwrap();
    let fake = Fake::ours("normal");
    let cases = [
        (
            Broken::UnknownHostKey,
            "host h1: ssh does not know the host's key",
        ),
        (
            Broken::ChangedHostKey,
            "host h1: its key is not the one known_hosts has for it",
        ),
        (Broken::NoKey, "host h1: ssh refused the login as "),
        (
            Broken::WrongUser,
            "host h1: ssh refused the login as iolab-no-such-user (Permission denied (publickey))",
        ),
    ];
    for (how, want) in cases {
        let cfg = sshd.broken_config(how).unwrap();
        let e = refused(&ssh(&cfg, &fake.path_str()), &["h1"]);
        eprintln!("{how:?}: {e}");
        assert!(e.starts_with(want), "{how:?}: {e}");
    }
    assert!(fake.running().is_empty());
}

#[test]
fn nothing_listening_and_no_agent_are_said() {
    require_fake!();
    let sshd = Sshd::start(&["h1"]).unwrap();
    let mut h = hosts(&["h1"]);
    h[0].port = Some(iolab_testutil::sshd::free_port().unwrap());
    let fake = Fake::ours("normal");
    let e = Fleet::connect(&h, &ssh(&sshd.config(), &fake.path_str()), &quick(5000))
        .err()
        .unwrap();
    assert!(
        e.starts_with("host h1: ssh's connection was refused"),
        "{e}"
    );
    let mut ch = ssh(&sshd.config(), "x");
    ch.agent_path = None;
    let e = refused(&ch, &["h1"]);
    // Unless this machine has an iolab on sshd's PATH.
    assert!(e.starts_with("host h1: no iolab in the remote PATH"), "{e}");
}

#[test]
fn another_version_is_refused_naming_both() {
    require_fake!();
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    let good = Fake::ours("normal");
    let old = Fake::new("normal", "0.0.1-old");
    // h2 runs the old one (a wrapper per host is not possible with one
    // agent path: the old agent on both, the error names the first).
    let e = refused(&ssh(&sshd.config(), &old.path_str()), &["h1", "h2"]);
    assert!(
        e.starts_with(&format!(
            "host h1 runs iolab 0.0.1-old (protocol 1); this controller is {} (protocol 1)",
            iolab_remote::proto::VERSION
        )),
        "{e}"
    );
    assert!(
        eventually(Duration::from_secs(3), || old.running().is_empty()),
        "{:?}",
        old.running()
    );
    assert!(good.running().is_empty());
}

#[test]
fn a_failing_host_stops_those_already_started() {
    require_fake!();
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    let fake = Fake::ours("normal");
    let mut h = hosts(&["h1", "h2"]);
    h[1].user = Some("iolab-no-such-user".into());
    let e = Fleet::connect(&h, &ssh(&sshd.config(), &fake.path_str()), &quick(5000))
        .err()
        .unwrap();
    assert!(
        e.starts_with("host h2: ssh refused the login as iolab-no-such-user"),
        "{e}"
    );
    assert!(
        eventually(Duration::from_secs(3), || fake.running().is_empty()),
        "{:?}",
        fake.running()
    );
}

#[test]
fn a_talkative_login_is_named() {
    require_fake!();
    let sshd = Sshd::start(&["h1"]).unwrap();
    let fake = Fake::ours("banner");
    let e = refused(&ssh(&sshd.config(), &fake.path_str()), &["h1"]);
    assert!(
        e.starts_with(
            "host h1: the remote shell printed 'Welcome to the test host!' before the agent"
        ),
        "{e}"
    );
    assert!(eventually(Duration::from_secs(3), || fake
        .running()
        .is_empty()));
}
