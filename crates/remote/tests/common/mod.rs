//! What iolab-remote's tests share: a fake agent (a python3 script
//! speaking the protocol's frames, misbehaving on demand) written to a
//! private directory whose path marks its processes, and a private sshd.

#![allow(dead_code)]

use iolab_remote::channel::{Channel, Shell};
use iolab_remote::link::LinkOptions;
use iolab_spec::HostSpec;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The python the fake agent runs with (sshd's sessions have a short
/// PATH: an absolute path).
pub fn python() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["/usr/bin/python3".into()]
        .into_iter()
        .chain(std::env::split_paths(&path).map(|d| d.join("python3")))
        .find(|p: &PathBuf| p.exists() && !p.to_string_lossy().contains("shims"))
}

/// A fake agent in a temp dir of its own: the script's path marks every
/// process it runs as.
pub struct Fake {
    pub dir: tempfile::TempDir,
    pub path: PathBuf,
}

impl Fake {
    pub fn new(mode: &str, version: &str) -> Fake {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix("iolab-fake.")
            .tempdir()
            .unwrap();
        let path = dir.path().join("fake-agent");
        let py = python().expect("python3");
        let text = include_str!("fake_agent.py")
            .replace("@MODE@", mode)
            .replace("@VERSION@", version);
        std::fs::write(&path, format!("#!{}\n{text}", py.display())).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        Fake { dir, path }
    }

    pub fn ours(mode: &str) -> Fake {
        Fake::new(mode, iolab_remote::proto::VERSION)
    }

    pub fn path_str(&self) -> String {
        self.path.display().to_string()
    }

    /// Processes whose command line names this agent's directory.
    pub fn running(&self) -> Vec<String> {
        pgrep(&self.dir.path().display().to_string())
            .into_iter()
            .filter(|l| l.contains("python"))
            .collect()
    }
}

/// Like `pgrep -af PATTERN`: "PID COMMAND LINE" of every process whose
/// command line contains `pattern` (this one excluded).
pub fn pgrep(pattern: &str) -> Vec<String> {
    let me = std::process::id();
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    rd.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter_map(|pid| {
            let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let line = String::from_utf8_lossy(&raw).replace('\0', " ");
            line.contains(pattern)
                .then(|| format!("{pid} {}", line.trim_end()))
        })
        .collect()
}

/// Wait up to `d` for `f` to hold.
pub fn eventually(d: Duration, mut f: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + d;
    loop {
        if f() {
            return true;
        }
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An ssh channel through `config` to the agent at `agent`.
pub fn ssh(config: &Path, agent: &str) -> Channel {
    Channel {
        shell: Shell::Ssh {
            config: Some(config.to_path_buf()),
            options: Vec::new(),
        },
        agent_path: Some(agent.to_string()),
        push: false,
    }
}

pub fn hosts(names: &[&str]) -> Vec<HostSpec> {
    names.iter().map(|n| HostSpec::named(n)).collect()
}

/// Quick heartbeats for tests.
pub fn quick(timeout_ms: u64) -> LinkOptions {
    LinkOptions {
        heartbeat: Duration::from_millis(100),
        timeout: Duration::from_millis(timeout_ms),
        clock_rounds: 8,
    }
}
