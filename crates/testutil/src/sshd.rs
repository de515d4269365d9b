//! A private OpenSSH server for multi-host tests: keys, known_hosts, an
//! ssh_config with host aliases and an sshd_config generated in a temp
//! dir, `sshd` listening on a free 127.0.0.1 port; on drop, sshd and
//! every process its sessions started (found by an environment marker
//! sshd sets in each session, so orphans are found too) are killed.
//! Never touches the machine's own sshd, /etc/ssh or ~/.ssh.

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server program (sshd needs an absolute path).
pub const SSHD: &str = "/usr/sbin/sshd";

/// Why a test cannot start an sshd here, if it cannot.
pub fn unavailable() -> Option<String> {
    if !Path::new(SSHD).exists() {
        return Some(format!("needs {SSHD} (Debian: openssh-server)"));
    }
    for t in ["ssh", "ssh-keygen"] {
        if !crate::have_tool(t) {
            return Some(format!("needs {t} (Debian: openssh-client)"));
        }
    }
    None
}

/// Skip (fail under CI) unless an sshd can be started.
#[macro_export]
macro_rules! require_sshd {
    () => {
        let why = $crate::sshd::unavailable();
        $crate::require!(why.is_none(), why.unwrap_or_default());
    };
}

/// A way to break the client's configuration, for refused connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Broken {
    /// known_hosts without the server's key.
    UnknownHostKey,
    /// known_hosts with another key for the server's address.
    ChangedHostKey,
    /// A client key the server does not know.
    NoKey,
    /// A user the server does not let in.
    WrongUser,
}

/// A running private sshd.
pub struct Sshd {
    dir: tempfile::TempDir,
    port: u16,
    /// The address sshd listens on (127.0.0.1, or the namespace's end).
    addr: std::net::Ipv4Addr,
    /// The network namespace sshd runs in, removed after sshd.
    netns: Option<Netns>,
    aliases: Vec<String>,
    user: String,
    child: Option<Child>,
}

fn keygen(path: &Path) -> Result<(), String> {
    let st = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "iolab-test", "-f"])
        .arg(path)
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("ssh-keygen: {e}"))?;
    st.success()
        .then_some(())
        .ok_or_else(|| format!("ssh-keygen failed for {}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// This process's user name.
fn current_user() -> String {
    // SAFETY: getpwuid returns a pointer into static storage or NULL; the
    // name is copied at once.
    unsafe {
        let pw = libc::getpwuid(libc::geteuid());
        if pw.is_null() {
            return "root".into();
        }
        std::ffi::CStr::from_ptr((*pw).pw_name)
            .to_string_lossy()
            .into_owned()
    }
}

/// A port nothing listens on now.
pub fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

impl Sshd {
    /// Start an sshd reachable as `aliases` (each an ssh alias of
    /// 127.0.0.1 and the server's port in [`Sshd::config`]).
    pub fn start(aliases: &[&str]) -> Result<Sshd, String> {
        Sshd::start_in(aliases, None)
    }

    /// Start an sshd in a network namespace of its own, reached over a
    /// veth pair whose host end [`Sshd::cut`] takes down (needs root).
    pub fn start_netns(aliases: &[&str]) -> Result<Sshd, String> {
        Sshd::start_in(aliases, Some(Netns::new()?))
    }

    fn start_in(aliases: &[&str], netns: Option<Netns>) -> Result<Sshd, String> {
        let dir = tempfile::Builder::new()
            .prefix("iolab-sshd.")
            .tempdir()
            .map_err(|e| format!("temp dir: {e}"))?;
        let d = dir.path();
        for k in [
            "host_key",
            "client_key",
            "other_host_key",
            "other_client_key",
        ] {
            keygen(&d.join(k))?;
        }
        std::fs::copy(d.join("client_key.pub"), d.join("authorized_keys"))
            .map_err(|e| format!("authorized_keys: {e}"))?;
        let mut s = Sshd {
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            user: current_user(),
            port: 0,
            addr: netns
                .as_ref()
                .map_or(std::net::Ipv4Addr::LOCALHOST, |n| n.inside),
            netns,
            child: None,
            dir,
        };
        let mut last = String::new();
        for _ in 0..5 {
            s.port = if s.netns.is_some() {
                2222
            } else {
                free_port()?
            };
            match s.launch() {
                Ok(c) => {
                    s.child = Some(c);
                    s.write_client_files()?;
                    return Ok(s);
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Write sshd_config and start sshd on `self.port`; wait until it
    /// accepts.
    fn launch(&self) -> Result<Child, String> {
        let d = self.dir.path();
        let cfg = d.join("sshd_config");
        write(
            &cfg,
            &format!(
                "ListenAddress {addr}:{port}\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\n\
                 PidFile {d}/sshd.pid\nUsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\n\
                 PasswordAuthentication no\nKbdInteractiveAuthentication no\nAllowUsers {user}\n\
                 MaxStartups 100:30:200\nMaxSessions 100\nUseDNS no\nPrintMotd no\nPrintLastLog no\n\
                 SetEnv IOLAB_TEST_SSHD={d}\nLogLevel VERBOSE\n",
                port = self.port,
                addr = self.addr,
                d = d.display(),
                user = self.user
            ),
        )?;
        if crate::is_root() {
            let _ = std::fs::create_dir_all("/run/sshd");
        }
        let log =
            std::fs::File::create(d.join("sshd.log")).map_err(|e| format!("sshd.log: {e}"))?;
        let mut cmd = match &self.netns {
            Some(n) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", &n.name, SSHD]);
                c
            }
            None => Command::new(SSHD),
        };
        let mut child = cmd
            .args(["-D", "-e", "-f"])
            .arg(&cfg)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("{SSHD}: {e}"))?;
        let addr = SocketAddr::from((self.addr, self.port));
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(st)) = child.try_wait() {
                let log = read(&d.join("sshd.log")).unwrap_or_default();
                return Err(format!("sshd ended ({st}): {}", log.trim()));
            }
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return Ok(child);
            }
            if Instant::now() > until {
                let _ = child.kill();
                let _ = child.wait();
                return Err("sshd did not accept within 10 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// known_hosts and the good ssh_config.
    fn write_client_files(&self) -> Result<(), String> {
        let d = self.dir.path();
        let key = |f: &str| -> Result<String, String> {
            let t = read(&d.join(f))?;
            Ok(t.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        };
        let host = format!("[{}]:{}", self.addr, self.port);
        write(
            &d.join("known_hosts"),
            &format!("{host} {}\n", key("host_key.pub")?),
        )?;
        write(
            &d.join("known_hosts_other"),
            &format!("{host} {}\n", key("other_host_key.pub")?),
        )?;
        write(&d.join("known_hosts_empty"), "")?;
        write(
            &d.join("ssh_config"),
            &self.client_config("known_hosts", "client_key", &self.user),
        )
    }

    fn client_config(&self, known: &str, key: &str, user: &str) -> String {
        let d = self.dir.path().display();
        format!(
            "Host {aliases}\n  HostName {addr}\n  Port {port}\n  User {user}\n  IdentityFile {d}/{key}\n  \
             IdentitiesOnly yes\n  UserKnownHostsFile {d}/{known}\n  GlobalKnownHostsFile /dev/null\n  \
             StrictHostKeyChecking yes\n  ConnectTimeout 5\n  LogLevel ERROR\n",
            aliases = self.aliases.join(" "),
            addr = self.addr,
            port = self.port
        )
    }

    /// The client's ssh_config (`ssh -F`): every alias reaches this sshd.
    pub fn config(&self) -> PathBuf {
        self.dir.path().join("ssh_config")
    }

    /// A client config broken as `how`.
    pub fn broken_config(&self, how: Broken) -> Result<PathBuf, String> {
        let text = match how {
            Broken::UnknownHostKey => {
                self.client_config("known_hosts_empty", "client_key", &self.user)
            }
            Broken::ChangedHostKey => {
                self.client_config("known_hosts_other", "client_key", &self.user)
            }
            Broken::NoKey => self.client_config("known_hosts", "other_client_key", &self.user),
            Broken::WrongUser => {
                self.client_config("known_hosts", "client_key", "iolab-no-such-user")
            }
        };
        let p = self.dir.path().join(format!("ssh_config_{how:?}"));
        write(&p, &text)?;
        Ok(p)
    }

    /// Cut the link to a namespace's sshd (its veth's host end down):
    /// packets are dropped, connections hang as on a pulled cable.
    pub fn cut(&self) -> Result<(), String> {
        let n = self.netns.as_ref().ok_or("not in a network namespace")?;
        ip(&["link", "set", &n.veth, "down"])
    }

    /// The address sshd listens on.
    pub fn addr(&self) -> std::net::Ipv4Addr {
        self.addr
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The user sessions log in as.
    pub fn user(&self) -> &str {
        &self.user
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// What sshd logged so far (for a failing test's message).
    pub fn log(&self) -> String {
        read(&self.dir.path().join("sshd.log")).unwrap_or_default()
    }

    /// Processes started by this sshd's sessions (still running).
    pub fn session_pids(&self) -> Vec<u32> {
        let marker = format!("IOLAB_TEST_SSHD={}", self.dir.path().display());
        pids_with_env(&marker)
    }
}

/// One ssh_config reaching every host of `servers` (each server's
/// aliases), written to `path`: e.g. a loopback sshd's h1 and a network
/// namespace's h2 in one run.
pub fn joined_config(servers: &[&Sshd], path: &Path) -> Result<PathBuf, String> {
    let mut text = String::new();
    for s in servers {
        text.push_str(&read(&s.config())?);
    }
    write(path, &text)?;
    Ok(path.to_path_buf())
}

/// Every process whose environment has the entry `entry`.
pub fn pids_with_env(entry: &str) -> Vec<u32> {
    let me = std::process::id();
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    rd.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == entry.as_bytes()))
        })
        .collect()
}

/// The parent of every process.
fn parents() -> Vec<(u32, u32)> {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    rd.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // After the command's closing parenthesis: state, then ppid.
            let rest = &stat[stat.rfind(')')? + 1..];
            let ppid = rest.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect()
}

/// Every descendant of `pid`.
pub fn descendants(pid: u32) -> Vec<u32> {
    let all = parents();
    let mut out = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        for &(c, pp) in &all {
            if pp == p && !out.contains(&c) {
                out.push(c);
                todo.push(c);
            }
        }
    }
    out
}

fn kill9(pids: &[u32]) {
    for &pid in pids {
        // SAFETY: kill(2) of a process this server started (its
        // descendant, or carrying its marker).
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGKILL);
        }
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let kids = descendants(c.id());
            let _ = c.kill();
            let _ = c.wait();
            kill9(&kids);
        }
        // Sessions' processes (sshd's per-connection children, shells,
        // agents), orphans included; twice, for any started meanwhile.
        for _ in 0..2 {
            kill9(&self.session_pids());
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = std::io::stderr().flush();
    }
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip: {e} (Debian: iproute2)"))?;
    out.status.success().then_some(()).ok_or_else(|| {
        format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )
    })
}

/// A network namespace and the veth pair to it (a /30 of 10.200.0.0/13
/// picked by pid and a counter); deleted on drop.
pub struct Netns {
    pub name: String,
    /// The host's end of the veth pair.
    pub veth: String,
    pub outside: std::net::Ipv4Addr,
    pub inside: std::net::Ipv4Addr,
}

impl Netns {
    pub fn new() -> Result<Netns, String> {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let pid = std::process::id();
        let idx = (pid.wrapping_mul(31).wrapping_add(n)) % (8 * 256 * 64);
        let (a, b, c) = (200 + idx / (256 * 64), (idx / 64) % 256, (idx % 64) * 4);
        let tag = format!("{:x}{n:x}", pid % 0xfffff);
        let ns = Netns {
            name: format!("iolab-{tag}"),
            veth: format!("iol{tag}a"),
            outside: std::net::Ipv4Addr::new(10, a as u8, b as u8, c as u8 + 1),
            inside: std::net::Ipv4Addr::new(10, a as u8, b as u8, c as u8 + 2),
        };
        let peer = format!("iol{tag}b");
        ip(&["netns", "add", &ns.name])?;
        let (o, i) = (format!("{}/30", ns.outside), format!("{}/30", ns.inside));
        let steps: [&[&str]; 7] = [
            &[
                "link", "add", &ns.veth, "type", "veth", "peer", "name", &peer,
            ],
            &["link", "set", &peer, "netns", &ns.name],
            &["addr", "add", &o, "dev", &ns.veth],
            &["link", "set", &ns.veth, "up"],
            &["-n", &ns.name, "addr", "add", &i, "dev", &peer],
            &["-n", &ns.name, "link", "set", &peer, "up"],
            &["-n", &ns.name, "link", "set", "lo", "up"],
        ];
        for s in steps {
            ip(s)?;
        }
        Ok(ns)
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.name]);
        let _ = ip(&["link", "del", &self.veth]);
    }
}
