//! Fleet over a private sshd with a fake agent: parallel connect, clock
//! offsets, messages routed, clean close (no agent, no ssh master, no
//! control directory left), the remote-shell template and --push.

mod common;

use common::*;
use iolab_remote::channel::{Channel, Shell};
use iolab_remote::link::{Fleet, LinkEvent};
use iolab_remote::{FromAgent, ToAgent};
use iolab_testutil::sshd::Sshd;
use iolab_testutil::{require, require_sshd};
use std::time::{Duration, Instant};

macro_rules! require_fake {
    () => {
        require_sshd!();
        require!(python().is_some(), "needs python3 (the fake agent)");
    };
}

#[test]
fn two_hosts_connect_in_parallel_with_clocks_and_close_clean() {
    require_fake!();
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    let fake = Fake::ours("normal");
    let ch = ssh(&sshd.config(), &fake.path_str());
    let t = Instant::now();
    let mut fleet = Fleet::connect(&hosts(&["h1", "h2"]), &ch, &quick(5000))
        .unwrap_or_else(|e| panic!("{e}\n{}", sshd.log()));
    eprintln!("connect of 2 hosts: {:?}", t.elapsed());
    assert_eq!(fleet.hosts().len(), 2);
    assert_ne!(fleet.info(0).pid, fleet.info(1).pid);
    for i in 0..2 {
        let c = fleet.clock(i).unwrap();
        eprintln!("host {i}: offset {} ns, rtt {} ns", c.offset_ns, c.rtt_ns);
        assert!(c.rtt_ns > 0 && c.rtt_ns < 1_000_000_000, "{c:?}");
        // One machine: the offset is within the round trip.
        assert!(c.offset_ns.unsigned_abs() <= c.rtt_ns, "{c:?}");
    }
    let again = fleet.sync_clocks();
    assert!(
        again.iter().all(|c| c.is_some_and(|c| c.rtt_ns > 0)),
        "{again:?}"
    );
    // A message each way, routed by host (heartbeats and pongs are not
    // in the queue).
    fleet.send(1, &ToAgent::Stop).unwrap();
    let (i, ev) = fleet.recv_timeout(Duration::from_secs(5)).expect("a note");
    match ev {
        LinkEvent::Message(m) => match *m {
            FromAgent::Note { message, .. } => assert!(message.starts_with("stopped"), "{message}"),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    assert_eq!(i, 1);
    std::thread::sleep(Duration::from_millis(400));
    assert!(fleet.recv_timeout(Duration::from_millis(10)).is_none());
    assert!(!fleet.is_lost(0) && !fleet.is_lost(1));
    assert_eq!(fake.running().len(), 2, "{:?}", fake.running());
    let ctl = fleet.control_dir().unwrap().to_path_buf();
    assert!(
        !pgrep(&ctl.display().to_string()).is_empty(),
        "no ssh master"
    );
    let notes = fleet.close();
    assert!(notes.is_empty(), "{notes:?}");
    assert!(
        eventually(Duration::from_secs(3), || fake.running().is_empty()),
        "{:?}",
        fake.running()
    );
    assert!(!ctl.exists());
    assert!(
        eventually(Duration::from_secs(3), || pgrep(&ctl.display().to_string())
            .is_empty()),
        "ssh masters left: {:?}",
        pgrep(&ctl.display().to_string())
    );
}

#[test]
fn a_remote_shell_template_runs_the_agent() {
    require!(python().is_some(), "needs python3 (the fake agent)");
    let fake = Fake::ours("normal");
    let ch = Channel {
        shell: Shell::from_template("env 'IOLAB_HOST={host}'").unwrap(),
        agent_path: Some(fake.path_str()),
        push: false,
    };
    let fleet = Fleet::connect(&hosts(&["c1", "c2"]), &ch, &quick(5000)).unwrap();
    assert_eq!(fleet.info(0).host.hostname, "c1");
    assert_eq!(fleet.info(1).host.hostname, "c2");
    assert!(fleet.control_dir().is_none());
    assert!(fleet.close().is_empty());
    assert!(eventually(Duration::from_secs(3), || fake
        .running()
        .is_empty()));
}

#[test]
fn push_copies_the_binary_and_removes_it() {
    require_fake!();
    let sshd = Sshd::start(&["h1"]).unwrap();
    let fake = Fake::ours("normal");
    let mut ch = ssh(&sshd.config(), "/nonexistent/iolab");
    ch.push = true;
    let fleet = Fleet::connect_with(&hosts(&["h1"]), &ch, &quick(5000), Some(&fake.path))
        .unwrap_or_else(|e| panic!("{e}\n{}", sshd.log()));
    let ran = fleet.info(0).host.os.clone();
    let dir = fleet.pushed_dir(0).unwrap().to_string();
    assert_eq!(ran, format!("{dir}/iolab"));
    let meta = std::fs::metadata(&dir).unwrap();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(meta.permissions().mode() & 0o777, 0o700);
    assert_eq!(
        std::fs::read(&ran).unwrap(),
        std::fs::read(&fake.path).unwrap()
    );
    assert!(fleet.close().is_empty());
    assert!(
        eventually(Duration::from_secs(3), || !std::path::Path::new(&dir)
            .exists()),
        "{dir} left behind"
    );
}

#[test]
fn close_leaves_no_agent_even_one_deaf_to_bye() {
    require_fake!();
    let sshd = Sshd::start(&["h1"]).unwrap();
    let fake = Fake::ours("stubborn");
    let ch = ssh(&sshd.config(), &fake.path_str());
    let fleet = Fleet::connect(&hosts(&["h1"]), &ch, &quick(5000)).unwrap();
    assert_eq!(fake.running().len(), 1);
    // Dropped as a Ctrl-C unwinding would, without close.
    drop(fleet);
    assert!(
        eventually(Duration::from_secs(3), || fake.running().is_empty()),
        "{:?}",
        fake.running()
    );
}

#[test]
fn nothing_listens_while_connected() {
    require_fake!();
    require!(testutil_has("ss"), "needs ss (iproute2)");
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    let fake = Fake::ours("normal");
    let ch = ssh(&sshd.config(), &fake.path_str());
    let fleet = Fleet::connect(&hosts(&["h1", "h2"]), &ch, &quick(5000)).unwrap();
    let ours: Vec<u32> = (0..2)
        .map(|i| fleet.info(i).pid)
        .chain([std::process::id()])
        .collect();
    let ctl = fleet.control_dir().unwrap().display().to_string();
    let masters: Vec<u32> = pgrep(&ctl)
        .iter()
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    assert!(!masters.is_empty());
    let out = std::process::Command::new("ss")
        .args(["-ltnpH"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for l in text.lines() {
        for pid in ours.iter().chain(&masters) {
            assert!(!l.contains(&format!("pid={pid},")), "listening: {l}");
        }
    }
    fleet.close();
}

fn testutil_has(t: &str) -> bool {
    iolab_testutil::have_tool(t)
}

#[test]
fn a_channel_that_ignores_the_end_is_killed_with_a_note() {
    require!(python().is_some(), "needs python3 (the fake agent)");
    let fake = Fake::ours("deaf");
    let ch = Channel {
        shell: Shell::from_template("env IOLAB_HOST={host}").unwrap(),
        agent_path: Some(fake.path_str()),
        push: false,
    };
    let fleet = Fleet::connect(&hosts(&["c1"]), &ch, &quick(5000)).unwrap();
    let t = Instant::now();
    let notes = fleet.close();
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("host c1: its agent's channel did not end"),
        "{notes:?}"
    );
    assert!(eventually(Duration::from_secs(3), || fake
        .running()
        .is_empty()));
}

#[test]
fn many_hosts_connect_over_ssh() {
    require_fake!();
    const N: usize = 12;
    let names: Vec<String> = (0..N).map(|i| format!("h{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let sshd = Sshd::start(&refs).unwrap();
    let fake = Fake::ours("normal");
    let ch = ssh(&sshd.config(), &fake.path_str());
    let t = Instant::now();
    let one = Fleet::connect(&hosts(&refs[..1]), &ch, &quick(5000)).unwrap();
    let t1 = t.elapsed();
    one.close();
    let t = Instant::now();
    let fleet = Fleet::connect(&hosts(&refs), &ch, &quick(5000))
        .unwrap_or_else(|e| panic!("{e}\n{}", sshd.log()));
    let tn = t.elapsed();
    let worst = (0..N)
        .map(|i| fleet.clock(i).unwrap().rtt_ns)
        .max()
        .unwrap();
    eprintln!("connect: 1 host {t1:?}, {N} hosts {tn:?}; worst clock rtt {worst} ns");
    assert_eq!(fake.running().len(), N);
    assert!(fleet.close().is_empty());
    assert!(eventually(Duration::from_secs(3), || fake
        .running()
        .is_empty()));
}

#[test]
fn hosts_connect_in_parallel() {
    require!(python().is_some(), "needs python3 (the fake agent)");
    // Every channel takes a second before its agent starts: in parallel,
    // 8 hosts take about a second, not 8.
    let fake = Fake::ours("normal");
    let ch = Channel {
        shell: Shell::from_template("sh -c 'sleep 1; exec \"$@\"' {host}").unwrap(),
        agent_path: Some(fake.path_str()),
        push: false,
    };
    let names: Vec<String> = (0..8).map(|i| format!("c{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let t = Instant::now();
    let fleet = Fleet::connect(&hosts(&refs), &ch, &quick(5000)).unwrap();
    let took = t.elapsed();
    eprintln!("8 hosts each a second to start: {took:?}");
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert!(fleet.close().is_empty());
}

/// A figure, not a check (`--ignored`): 64 hosts over one sshd.
#[test]
#[ignore]
fn sixty_four_hosts_over_ssh() {
    require_fake!();
    const N: usize = 64;
    let names: Vec<String> = (0..N).map(|i| format!("h{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let sshd = Sshd::start(&refs).unwrap();
    let fake = Fake::ours("normal");
    let ch = ssh(&sshd.config(), &fake.path_str());
    let t = Instant::now();
    let mut fleet = Fleet::connect(&hosts(&refs), &ch, &quick(30_000))
        .unwrap_or_else(|e| panic!("{e}\n{}", sshd.log()));
    let tc = t.elapsed();
    let t = Instant::now();
    let clocks = fleet.sync_clocks();
    let ts = t.elapsed();
    let worst = clocks.iter().map(|c| c.unwrap().rtt_ns).max().unwrap();
    let t = Instant::now();
    let notes = fleet.close();
    eprintln!(
        "{N} hosts: connect {tc:?}, sync_clocks {ts:?} (worst rtt {worst} ns), close {:?}, notes {notes:?}",
        t.elapsed()
    );
    assert!(eventually(Duration::from_secs(5), || fake
        .running()
        .is_empty()));
}

#[test]
fn push_refuses_another_architecture() {
    require!(python().is_some(), "needs python3 (the fake agent)");
    use std::os::unix::fs::PermissionsExt;
    let fake = Fake::ours("normal");
    // A "host" whose uname -m says riscv64.
    let bin = fake.dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::write(bin.join("uname"), "#!/bin/sh\necho riscv64\n").unwrap();
    std::fs::set_permissions(bin.join("uname"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let ch = Channel {
        shell: Shell::from_template(&format!(
            "env PATH={}:/usr/bin:/bin IOLAB_HOST={{host}}",
            bin.display()
        ))
        .unwrap(),
        agent_path: None,
        push: true,
    };
    let before = pgrep("/tmp/iolab-agent.").len();
    let e = Fleet::connect_with(&hosts(&["r1"]), &ch, &quick(5000), Some(&fake.path))
        .err()
        .unwrap();
    assert!(
        e.starts_with(&format!(
            "host r1: its machine is riscv64, this controller's is {}",
            std::env::consts::ARCH
        )),
        "{e}"
    );
    assert_eq!(pgrep("/tmp/iolab-agent.").len(), before);
}
