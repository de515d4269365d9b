//! Fleet against the real agent (`iolab agent --stdio`, this workspace's
//! target/debug/iolab) over a private sshd: hello and versions, clocks,
//! `--push` of the real binary, and nothing left running after close or
//! after a drop without close.

mod common;

use common::*;
use iolab_remote::link::{Fleet, LinkEvent};
use iolab_testutil::sshd::Sshd;
use iolab_testutil::{require, require_sshd};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// This workspace's iolab (cargo builds every binary before running a
/// workspace's tests; `cargo build -p iolab` for this crate's alone).
fn iolab() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let p = exe.parent()?.parent()?.join("iolab");
    p.exists().then_some(p)
}

fn agents_of(bin: &std::path::Path) -> Vec<String> {
    pgrep(&format!("{} agent --stdio", bin.display()))
        .into_iter()
        .filter(|l| !l.contains(" ssh "))
        .filter(|l| {
            !l.split_whitespace()
                .nth(1)
                .is_some_and(|p| p.ends_with("ssh"))
        })
        .collect()
}

#[test]
fn the_real_agent_connects_and_leaves_nothing() {
    require_sshd!();
    require!(
        iolab().is_some(),
        "needs target/debug/iolab (cargo build -p iolab)"
    );
    let bin = iolab().unwrap();
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    let ch = ssh(&sshd.config(), &bin.display().to_string());
    let t = Instant::now();
    let mut fleet = Fleet::connect(&hosts(&["h1", "h2"]), &ch, &quick(3000))
        .unwrap_or_else(|e| panic!("{e}\n{}", sshd.log()));
    eprintln!("real agents, 2 hosts: connect {:?}", t.elapsed());
    for i in 0..2 {
        let info = fleet.info(i);
        assert_eq!(info.version, iolab_remote::proto::VERSION);
        assert_eq!(info.arch, std::env::consts::ARCH);
        let c = fleet.clock(i).unwrap();
        eprintln!(
            "host {i}: pid {} offset {} ns rtt {} ns",
            info.pid, c.offset_ns, c.rtt_ns
        );
        assert!(c.offset_ns.unsigned_abs() <= c.rtt_ns, "{c:?}");
    }
    assert_eq!(agents_of(&bin).len(), 2, "{:?}", agents_of(&bin));
    // Heartbeats keep it alive past the timeout.
    std::thread::sleep(Duration::from_millis(3500));
    while let Some((i, ev)) = fleet.recv_timeout(Duration::from_millis(10)) {
        assert!(!matches!(ev, LinkEvent::Lost { .. }), "host {i}: {ev:?}");
    }
    assert!(fleet.sync_clocks().iter().all(Option::is_some));
    assert!(fleet.close().is_empty());
    assert!(
        eventually(Duration::from_secs(3), || agents_of(&bin).is_empty()),
        "{:?}",
        agents_of(&bin)
    );
}

#[test]
fn the_real_binary_is_pushed_and_removed() {
    require_sshd!();
    require!(
        iolab().is_some(),
        "needs target/debug/iolab (cargo build -p iolab)"
    );
    let bin = iolab().unwrap();
    let sshd = Sshd::start(&["h1"]).unwrap();
    let mut ch = ssh(&sshd.config(), "/nonexistent/iolab");
    ch.push = true;
    let t = Instant::now();
    let fleet = Fleet::connect_with(&hosts(&["h1"]), &ch, &quick(3000), Some(&bin))
        .unwrap_or_else(|e| panic!("{e}\n{}", sshd.log()));
    let size = std::fs::metadata(&bin).unwrap().len();
    eprintln!("--push of {} MB and connect: {:?}", size >> 20, t.elapsed());
    let dir = fleet.pushed_dir(0).unwrap().to_string();
    assert!(!pgrep(&format!("{dir}/iolab agent --stdio")).is_empty());
    // Dropped as an interrupted controller's would be.
    drop(fleet);
    assert!(
        eventually(Duration::from_secs(3), || !std::path::Path::new(&dir)
            .exists()),
        "{dir} left"
    );
    assert!(pgrep(&format!("{dir}/iolab")).is_empty());
}
