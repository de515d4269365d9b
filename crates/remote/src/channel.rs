//! How an agent is started on a host: OpenSSH by default (`ssh -T` with
//! `BatchMode`, the user's keys, `~/.ssh/config`, known_hosts and
//! connection multiplexing), or any remote shell given as a template
//! (`--remote-shell 'kubectl exec -i {host} --'`); the agent is `iolab`
//! from the remote PATH, `--agent-path PATH`, or the controller's own
//! binary copied to a private temporary path (`--push`).
//!
//! The channel's processes run in a process group of their own, so a
//! Ctrl-C reaches the controller only, which stops the agents itself.

use std::path::PathBuf;

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
