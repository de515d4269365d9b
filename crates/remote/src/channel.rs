//! How an agent is started on a host: OpenSSH by default (`ssh -T` with
//! `BatchMode`, the user's keys, `~/.ssh/config`, known_hosts and
//! connection multiplexing), or any remote shell given as a template
//! (`--remote-shell 'kubectl exec -i {host} --'`); the agent is `iolab`
//! from the remote PATH, `--agent-path PATH`, or the controller's own
//! binary copied to a private temporary path (`--push`).
//!
//! The channel's processes run in a process group of their own, so a
//! Ctrl-C reaches the controller only, which stops the agents itself.

use crate::{process, refuse};
use iolab_spec::HostSpec;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The remote-execution program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shell {
    /// OpenSSH's `ssh`, with `-F FILE` (`--ssh-config`) and `-o OPTION`s
    /// (`--ssh-option`) of the user's.
    Ssh {
        config: Option<PathBuf>,
        options: Vec<String>,
    },
    /// `--remote-shell`: the words of the template, `{host}` replaced by
    /// the host's address; the command follows as arguments.
    Template(Vec<String>),
}

/// How agents are started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    pub shell: Shell,
    /// `--agent-path`: the agent's binary on the hosts (default: `iolab`
    /// from the remote PATH).
    pub agent_path: Option<String>,
    /// `--push`: copy the controller's binary to each host (same
    /// architecture only) and remove it after.
    pub push: bool,
}

impl Default for Channel {
    fn default() -> Self {
        Channel {
            shell: Shell::Ssh {
                config: None,
                options: Vec::new(),
            },
            agent_path: None,
            push: false,
        }
    }
}

impl Shell {
    /// `--remote-shell`'s template: its words split as a shell would
    /// (quotes and backslashes), which must name `{host}`.
    pub fn from_template(s: &str) -> Result<Shell, String> {
        let words = split_words(s).map_err(|e| format!("--remote-shell '{s}': {e}"))?;
        if words.is_empty() {
            return Err(
                "--remote-shell is empty; give a command such as 'kubectl exec -i {host} --'"
                    .into(),
            );
        }
        if !words.iter().any(|w| w.contains("{host}")) {
            return Err(format!(
                "--remote-shell '{s}' does not say where the host goes; write {{host}} there, e.g. 'docker exec -i {{host}}'"
            ));
        }
        Ok(Shell::Template(words))
    }

    /// Whether the command is given to the remote side as one string for
    /// its shell (ssh joins its arguments) rather than as arguments.
    fn joins_command(&self) -> bool {
        match self {
            Shell::Ssh { .. } => true,
            Shell::Template(w) => w.first().is_some_and(|p| {
                std::path::Path::new(p)
                    .file_name()
                    .is_some_and(|n| n == "ssh")
            }),
        }
    }
}

/// Words as a POSIX shell splits them: blanks separate, '...' is literal,
/// "..." keeps blanks (backslash escapes \ " $ `), a backslash outside
/// quotes escapes the next character. No expansion of any kind.
pub fn split_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur: Option<String> = None;
    let mut it = s.chars();
    while let Some(c) = it.next() {
        match c {
            ' ' | '\t' | '\n' => words.extend(cur.take()),
            '\'' => {
                let w = cur.get_or_insert_with(String::new);
                loop {
                    match it.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err("a ' is not closed".into()),
                    }
                }
            }
            '"' => {
                let w = cur.get_or_insert_with(String::new);
                loop {
                    match it.next() {
                        Some('"') => break,
                        Some('\\') => match it.next() {
                            Some(c @ ('\\' | '"' | '$' | '`')) => w.push(c),
                            Some(c) => {
                                w.push('\\');
                                w.push(c);
                            }
                            None => return Err("a \" is not closed".into()),
                        },
                        Some(c) => w.push(c),
                        None => return Err("a \" is not closed".into()),
                    }
                }
            }
            '\\' => match it.next() {
                Some(c) => cur.get_or_insert_with(String::new).push(c),
                None => return Err("it ends with a lone \\".into()),
            },
            c => cur.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(cur);
    Ok(words)
}

/// `s` quoted for a POSIX shell: as is when made of safe characters only,
/// else in single quotes.
pub fn quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The private directory of ssh's connection-multiplexing sockets
/// (mode 0700), removed on drop.
pub struct ControlDir {
    path: PathBuf,
}

impl ControlDir {
    pub fn new() -> Result<ControlDir, String> {
        use std::os::unix::ffi::OsStrExt;
        let tmp = std::env::temp_dir().join("iolab-ssh.XXXXXX");
        let mut t = std::ffi::CString::new(tmp.as_os_str().as_bytes())
            .map_err(|_| "the temporary directory's path has a NUL byte".to_string())?
            .into_bytes_with_nul();
        // SAFETY: mkdtemp(3) rewrites the X's of a NUL-terminated buffer
        // it owns for the call; it creates the directory with mode 0700.
        let p = unsafe { libc::mkdtemp(t.as_mut_ptr() as *mut libc::c_char) };
        if p.is_null() {
            return Err(format!(
                "cannot make a private directory in {} for ssh's sockets: {}",
                std::env::temp_dir().display(),
                std::io::Error::last_os_error()
            ));
        }
        t.pop();
        Ok(ControlDir {
            path: PathBuf::from(std::ffi::OsStr::from_bytes(&t)),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ControlDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// How long a copy (`--push`) may take.
const PUSH_TIME: Duration = Duration::from_secs(120);

/// The shell script that checks the host's architecture and copies the
/// binary on its stdin to a private directory: prints `dir DIR`, or
/// `arch MACHINE` when the machine is another.
fn push_script(arch: &str) -> String {
    format!(
        "m=$(uname -m); case \"$m\" in {arch}) ;; *) echo \"arch $m\"; exit 0;; esac; \
         umask 077; d=$(mktemp -d /tmp/iolab-agent.XXXXXX) || exit 1; \
         cat > \"$d/iolab\" && chmod 700 \"$d/iolab\" && echo \"dir $d\""
    )
}

/// The names `uname -m` gives this controller's architecture.
fn arch_names() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "aarch64|arm64",
        "x86" => "i386|i486|i586|i686",
        a => a,
    }
}

/// Whether `d` is a directory `--push` made (nothing else is ever removed).
pub fn is_push_dir(d: &str) -> bool {
    d.strip_prefix("/tmp/iolab-agent.")
        .is_some_and(|s| s.len() == 6 && s.chars().all(|c| c.is_ascii_alphanumeric()))
}

impl Channel {
    /// The command that runs `argv` on `host`; `ctl` is the fleet's
    /// ssh control directory, `index` the host's place in the fleet.
    pub fn command(
        &self,
        ctl: Option<&Path>,
        host: &HostSpec,
        index: usize,
        argv: &[String],
    ) -> Command {
        let joined = || argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ");
        match &self.shell {
            Shell::Ssh { .. } => {
                let mut c = Command::new("ssh");
                c.args(self.ssh_args(ctl, host, index));
                c.arg("--").arg(host.address()).arg(joined());
                c
            }
            Shell::Template(words) => {
                let mut w = words.iter().map(|w| w.replace("{host}", host.address()));
                let mut c = Command::new(w.next().unwrap_or_default());
                c.args(w);
                if self.shell.joins_command() {
                    c.arg(joined());
                } else {
                    c.args(argv);
                }
                c
            }
        }
    }

    /// ssh's options for `host`, before `--`.
    fn ssh_args(&self, ctl: Option<&Path>, host: &HostSpec, index: usize) -> Vec<String> {
        let Shell::Ssh { config, options } = &self.shell else {
            return Vec::new();
        };
        let mut a: Vec<String> = vec!["-T".into(), "-o".into(), "BatchMode=yes".into()];
        if let Some(f) = config {
            a.extend(["-F".into(), f.display().to_string()]);
        }
        for o in options {
            a.extend(["-o".into(), o.clone()]);
        }
        if let Some(d) = ctl {
            a.extend([
                "-o".into(),
                "ControlMaster=auto".into(),
                "-o".into(),
                format!("ControlPath={}/{index}-%C", d.display()),
                "-o".into(),
                "ControlPersist=30".into(),
            ]);
        }
        if let Some(p) = host.port {
            a.extend(["-p".into(), p.to_string()]);
        }
        if let Some(u) = &host.user {
            a.extend(["-l".into(), u.clone()]);
        }
        a
    }

    /// Whether this channel is OpenSSH (with a control directory).
    pub fn is_ssh(&self) -> bool {
        matches!(self.shell, Shell::Ssh { .. })
    }

    /// The agent's command line; `pushed`: the directory `--push` made.
    pub fn agent_argv(&self, pushed: Option<&str>) -> Vec<String> {
        match pushed {
            // The shell waits for the agent and removes its copy after,
            // however the agent ends.
            Some(d) => vec![
                "sh".into(),
                "-c".into(),
                "\"$0/iolab\" agent --stdio; rc=$?; rm -rf \"$0\"; exit $rc".into(),
                d.into(),
            ],
            None => vec![
                self.agent_path.clone().unwrap_or_else(|| "iolab".into()),
                "agent".into(),
                "--stdio".into(),
            ],
        }
    }

    /// `--push`: copy `exe` to a private directory on `host`, of the same
    /// architecture only: the directory, or the one line of a refusal.
    pub fn push(
        &self,
        ctl: Option<&Path>,
        host: &HostSpec,
        index: usize,
        exe: &Path,
    ) -> Result<String, String> {
        let f = std::fs::File::open(exe)
            .map_err(|e| format!("--push: cannot read this iolab ({}): {e}", exe.display()))?;
        let argv = ["sh".to_string(), "-c".into(), push_script(arch_names())];
        let (st, out, err) =
            process::run_with(self.command(ctl, host, index, &argv), Some(f), PUSH_TIME)
                .map_err(|e| self.spawn_error(&e))?;
        let said = out.lines().next().unwrap_or_default();
        if let Some(m) = said.strip_prefix("arch ") {
            return Err(format!(
                "host {}: its machine is {m}, this controller's is {}; --push copies this binary, which cannot run there: install iolab there (or give --agent-path)",
                host.name,
                std::env::consts::ARCH
            ));
        }
        match said.strip_prefix("dir ") {
            Some(d) if is_push_dir(d) && st.is_some_and(|s| s.success()) => Ok(d.to_string()),
            _ if st.is_none() => Err(format!(
                "host {}: copying iolab there (--push) took more than {} s",
                host.name,
                PUSH_TIME.as_secs()
            )),
            _ => Err(
                refuse::refusal(&host.name, self.is_ssh(), st.and_then(|s| s.code()), &err)
                    .replace("before its hello", "while copying iolab (--push)"),
            ),
        }
    }

    /// Remove what `push` made on `host` (after a session that did not
    /// end by itself), waiting at most a few seconds.
    pub fn remove_pushed(
        &self,
        ctl: Option<&Path>,
        host: &HostSpec,
        index: usize,
        dir: &str,
    ) -> bool {
        if !is_push_dir(dir) {
            return false;
        }
        let argv = ["rm".to_string(), "-rf".into(), dir.into()];
        matches!(
            process::run_with(self.command(ctl, host, index, &argv), None, Duration::from_secs(5)),
            Ok((Some(s), _, _)) if s.success()
        )
    }

    /// End ssh's master connection to `host` (`ssh -O exit`).
    pub fn exit_master(&self, ctl: &Path, host: &HostSpec, index: usize) {
        let mut c = Command::new("ssh");
        c.args(self.ssh_args(Some(ctl), host, index));
        c.args(["-O", "exit", "--", host.address()]);
        let _ = process::run_with(c, None, Duration::from_secs(3));
    }

    /// The line a channel that cannot be started becomes.
    pub fn spawn_error(&self, e: &std::io::Error) -> String {
        let prog = match &self.shell {
            Shell::Ssh { .. } => "ssh".to_string(),
            Shell::Template(w) => w.first().cloned().unwrap_or_default(),
        };
        if e.kind() == std::io::ErrorKind::NotFound {
            format!("cannot start {prog}: it is not on PATH; install it (OpenSSH's client for ssh) or give --remote-shell")
        } else {
            format!("cannot start {prog}: {e}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_as_a_shell_would() {
        let w = split_words(r#"kubectl exec -i '{host}' -- "a b" c\ d 'it''s'"#).unwrap();
        assert_eq!(
            w,
            ["kubectl", "exec", "-i", "{host}", "--", "a b", "c d", "its"]
        );
        assert!(split_words("ssh 'x").is_err());
        assert!(Shell::from_template("docker exec -i").is_err());
        assert!(Shell::from_template("  ").is_err());
    }

    #[test]
    fn quoting_survives_a_shell() {
        for s in ["plain", "a b", "it's", "$HOME", "", "x;rm -rf /"] {
            let out = Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {}", quote(s)))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), s);
        }
    }

    fn args(c: &Command) -> Vec<String> {
        std::iter::once(c.get_program())
            .chain(c.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn ssh_gets_options_then_the_host_then_one_command() {
        let ch = Channel {
            shell: Shell::Ssh {
                config: Some("/c".into()),
                options: vec!["ConnectTimeout=5".into()],
            },
            agent_path: Some("/opt/my iolab".into()),
            push: false,
        };
        let mut h = HostSpec::named("h1");
        h.user = Some("bob".into());
        h.port = Some(2222);
        let a = args(&ch.command(Some(Path::new("/d")), &h, 3, &ch.agent_argv(None)));
        let want = [
            "ssh",
            "-T",
            "-o",
            "BatchMode=yes",
            "-F",
            "/c",
            "-o",
            "ConnectTimeout=5",
            "-o",
            "ControlMaster=auto",
            "-o",
            "ControlPath=/d/3-%C",
            "-o",
            "ControlPersist=30",
            "-p",
            "2222",
            "-l",
            "bob",
            "--",
            "h1",
            "'/opt/my iolab' agent --stdio",
        ];
        assert_eq!(a, want);
    }

    #[test]
    fn a_template_gets_the_command_as_arguments_unless_it_is_ssh() {
        let mut ch = Channel {
            shell: Shell::from_template("docker exec -i {host}").unwrap(),
            ..Default::default()
        };
        let h = HostSpec::named("c1");
        let argv = ch.agent_argv(Some("/tmp/iolab-agent.abc123"));
        let a = args(&ch.command(None, &h, 0, &argv));
        assert_eq!(&a[..4], ["docker", "exec", "-i", "c1"]);
        assert_eq!(&a[4..], &argv[..]);
        ch.shell = Shell::from_template("/usr/bin/ssh -J jump {host}").unwrap();
        let a = args(&ch.command(None, &h, 0, &ch.agent_argv(None)));
        assert_eq!(
            a,
            ["/usr/bin/ssh", "-J", "jump", "c1", "iolab agent --stdio"]
        );
    }

    #[test]
    fn only_push_directories_are_removed() {
        assert!(is_push_dir("/tmp/iolab-agent.Ab12Cd"));
        for d in [
            "/tmp/iolab-agent.",
            "/tmp/iolab-agent.x/..",
            "/",
            "/tmp/iolab-agent.Ab12C/",
        ] {
            assert!(!is_push_dir(d), "{d}");
        }
    }
}
