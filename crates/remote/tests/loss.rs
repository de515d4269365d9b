//! Hosts lost mid-session: an agent killed (its channel ends) and an
//! agent gone silent (no heartbeat for the timeout) are each reported
//! once, with when and why; the others go on.

mod common;

use common::*;
use iolab_remote::link::{Fleet, LinkEvent};
use iolab_remote::ToAgent;
use iolab_testutil::sshd::Sshd;
use iolab_testutil::{require, require_sshd};
use std::time::{Duration, Instant, SystemTime};

macro_rules! require_fake {
    () => {
        require_sshd!();
        require!(python().is_some(), "needs python3 (the fake agent)");
    };
}

/// The next loss, within `d`; messages skipped.
fn next_loss(f: &Fleet, d: Duration) -> Option<(usize, SystemTime, String)> {
    let until = Instant::now() + d;
    while Instant::now() < until {
        if let Some((i, LinkEvent::Lost { at, reason })) = f.recv_timeout(Duration::from_millis(50))
        {
            return Some((i, at, reason));
        }
    }
    None
}

#[test]
fn a_killed_agent_is_lost_with_its_reason() {
    require_fake!();
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    let fake = Fake::ours("normal");
    let fleet = Fleet::connect(
        &hosts(&["h1", "h2"]),
        &ssh(&sshd.config(), &fake.path_str()),
        &quick(3000),
    )
    .unwrap();
    let pid = fleet.info(1).pid;
    let t = SystemTime::now();
    // SAFETY: kill(2) of the fake agent this test started.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    let (i, at, reason) =
        next_loss(&fleet, Duration::from_secs(3)).expect("lost within the timeout");
    eprintln!("lost {i} after {:?}: {reason}", at.duration_since(t));
    assert_eq!(i, 1);
    assert!(reason.contains("the agent's channel closed"), "{reason}");
    assert!(at >= t);
    assert!(fleet.is_lost(1) && !fleet.is_lost(0));
    assert!(fleet.send(1, &ToAgent::Stop).is_err());
    // The other host goes on; the loss is said once.
    std::thread::sleep(Duration::from_millis(500));
    assert!(next_loss(&fleet, Duration::from_millis(300)).is_none());
    assert!(fleet.send(0, &ToAgent::Stop).is_ok());
    let notes = fleet.close();
    assert!(notes.is_empty(), "{notes:?}");
    assert!(eventually(Duration::from_secs(3), || fake
        .running()
        .is_empty()));
}

#[test]
fn a_silent_agent_is_lost_after_the_timeout() {
    require_fake!();
    let sshd = Sshd::start(&["h1"]).unwrap();
    let fake = Fake::ours("mute");
    let fleet = Fleet::connect(
        &hosts(&["h1"]),
        &ssh(&sshd.config(), &fake.path_str()),
        &quick(1000),
    )
    .unwrap();
    let t = Instant::now();
    let (i, _, reason) = next_loss(&fleet, Duration::from_secs(5)).expect("lost");
    let after = t.elapsed();
    eprintln!("silent host lost after {after:?}: {reason}");
    assert_eq!(i, 0);
    assert!(
        reason.starts_with("nothing from its agent for "),
        "{reason}"
    );
    assert!(after >= Duration::from_millis(900), "{after:?}");
    fleet.close();
    assert!(
        eventually(Duration::from_secs(3), || fake.running().is_empty()),
        "{:?}",
        fake.running()
    );
}

#[test]
fn a_cut_link_is_lost_after_the_timeout() {
    require_fake!();
    iolab_testutil::require_root!();
    iolab_testutil::require_tool!("ip");
    let sshd = Sshd::start_netns(&["h1"]).unwrap();
    let fake = Fake::ours("normal");
    let fleet = Fleet::connect(
        &hosts(&["h1"]),
        &ssh(&sshd.config(), &fake.path_str()),
        &quick(1000),
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", sshd.log()));
    assert!(
        next_loss(&fleet, Duration::from_millis(1500)).is_none(),
        "lost before the cut"
    );
    sshd.cut().unwrap();
    let t = Instant::now();
    let (i, _, reason) = next_loss(&fleet, Duration::from_secs(5)).expect("lost");
    let after = t.elapsed();
    eprintln!("cut host lost after {after:?}: {reason}");
    assert_eq!(i, 0);
    assert!(
        reason.starts_with("nothing from its agent for "),
        "{reason}"
    );
    let t = Instant::now();
    let notes = fleet.close();
    eprintln!("close after the cut: {:?} {notes:?}", t.elapsed());
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
}

/// Run by `a_killed_controller_leaves_no_agent` in a child process: the
/// controller that dies.
#[test]
fn controller_that_dies() {
    let (Ok(cfg), Ok(agent)) = (
        std::env::var("IOLAB_TEST_CONFIG"),
        std::env::var("IOLAB_TEST_AGENT"),
    ) else {
        return; // Only as the child of the test below.
    };
    let ch = ssh(std::path::Path::new(&cfg), &agent);
    let fleet = Fleet::connect(&hosts(&["h1", "h2"]), &ch, &quick(30_000)).unwrap();
    println!("ctl {}", fleet.control_dir().unwrap().display());
    std::thread::sleep(Duration::from_secs(60));
    drop(fleet);
}

#[test]
fn a_killed_controller_leaves_no_agent() {
    require_fake!();
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    let fake = Fake::ours("normal");
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "controller_that_dies", "--nocapture"])
        .env("IOLAB_TEST_CONFIG", sshd.config())
        .env("IOLAB_TEST_AGENT", fake.path_str())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let ctl = std::iter::from_fn(|| {
        let mut l = String::new();
        (std::io::BufRead::read_line(&mut out, &mut l).ok()? > 0).then_some(l)
    })
    .find_map(|l| l.strip_prefix("ctl ").map(|p| p.trim().to_string()));
    let up = eventually(Duration::from_secs(10), || fake.running().len() == 2);
    // SIGKILL: no close, no Drop; what is left must end by itself (the
    // channels' stdin closes with the controller: the agents read EOF).
    let _ = child.kill();
    let _ = child.wait();
    assert!(up && ctl.is_some(), "the child never connected");
    // What a killed controller cannot remove: its (empty) socket dir.
    let gone = eventually(Duration::from_secs(5), || fake.running().is_empty());
    let left = fake.running();
    // What a killed controller cannot remove: its (empty) socket dir.
    drop(sshd);
    let _ = std::fs::remove_dir_all(ctl.unwrap());
    assert!(gone, "{left:?}");
}

#[test]
fn a_cut_host_goes_while_the_other_stays() {
    require_fake!();
    iolab_testutil::require_root!();
    iolab_testutil::require_tool!("ip");
    let near = Sshd::start(&["h1"]).unwrap();
    let far = Sshd::start_netns(&["h2"]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = iolab_testutil::sshd::joined_config(&[&near, &far], &dir.path().join("cfg")).unwrap();
    let fake = Fake::ours("normal");
    let fleet = Fleet::connect(
        &hosts(&["h1", "h2"]),
        &ssh(&cfg, &fake.path_str()),
        &quick(1000),
    )
    .unwrap();
    far.cut().unwrap();
    let (i, _, reason) = next_loss(&fleet, Duration::from_secs(5)).expect("lost");
    assert_eq!(
        (i, reason.starts_with("nothing from")),
        (1, true),
        "{reason}"
    );
    assert!(next_loss(&fleet, Duration::from_millis(1500)).is_none());
    assert!(!fleet.is_lost(0));
    assert!(fleet.close().is_empty());
}
