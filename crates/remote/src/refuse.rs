//! The one line a connection that failed becomes: ssh's own failures
//! (exit 255 and what it said on stderr: an unknown host key, a refused
//! login, no route), no agent on the remote side, a remote shell that
//! talks before the agent. Each names the host as the user named it and
//! says what to do.

use crate::process::last_line;

/// Why the channel to `host` ended before the agent's hello: `code` its
/// exit code (None: killed or still running), `stderr` the end of what it
/// said.
pub fn refusal(host: &str, ssh: bool, code: Option<i32>, stderr: &str) -> String {
    if ssh && code == Some(255) {
        if let Some(s) = ssh_failure(host, stderr) {
            return s;
        }
    }
    let low = stderr.to_ascii_lowercase();
    if code == Some(127) || low.contains("command not found") || low.contains(": not found") {
        return format!(
            "host {host}: no iolab in the remote PATH; install it there, give --agent-path PATH, or --push"
        );
    }
    if code == Some(126) || low.contains("no such file or directory") {
        return format!(
            "host {host}: the agent could not be started ({}); check --agent-path, or use --push",
            last_line(stderr).unwrap_or_else(|| "exit 126".into())
        );
    }
    let status = match code {
        Some(c) => format!("exit {c}"),
        None => "killed".to_string(),
    };
    match last_line(stderr) {
        Some(l) => {
            format!("host {host}: the agent's channel ended before its hello ({status}): {l}")
        }
        None => format!(
            "host {host}: the agent's channel ended before its hello ({status}), saying nothing"
        ),
    }
}

/// ssh's own failure (it exited 255), from its stderr.
fn ssh_failure(host: &str, stderr: &str) -> Option<String> {
    let has = |s: &str| stderr.contains(s);
    if has("IDENTIFICATION HAS CHANGED") {
        return Some(format!(
            "host {host}: its key is not the one known_hosts has for it (reinstalled, or not that host?); check it, then replace it in known_hosts (ssh-keygen -R)"
        ));
    }
    if has("Host key verification failed") {
        return Some(format!(
            "host {host}: ssh does not know the host's key (not in known_hosts); connect once with ssh to check and accept it, or add it to known_hosts"
        ));
    }
    if let Some(line) = stderr.lines().find(|l| l.contains("Permission denied")) {
        let user = line
            .split_once('@')
            .map(|(u, _)| u.trim())
            .filter(|u| !u.contains(' '));
        let why = line
            .find("Permission denied")
            .map(|i| line[i..].trim().trim_end_matches('.'));
        return Some(format!(
            "host {host}: ssh refused the login as {} ({}); ssh-copy-id a key for that user, or give USER@{host} / the host file's user",
            user.unwrap_or("its user"),
            why.unwrap_or("Permission denied")
        ));
    }
    let low = stderr.to_ascii_lowercase();
    let said = last_line(stderr).unwrap_or_default();
    let what = if low.contains("could not resolve hostname") {
        "ssh could not resolve its name; check the name, or give an address"
    } else if low.contains("connection refused") {
        "ssh's connection was refused; is sshd running there, on that port?"
    } else if low.contains("timed out") {
        "ssh's connection timed out; is the host up and reachable?"
    } else if low.contains("no route to host") || low.contains("network is unreachable") {
        "ssh found no route to it; is the host up and reachable?"
    } else {
        return Some(if said.is_empty() {
            format!("host {host}: ssh failed (exit 255) without saying why")
        } else {
            format!("host {host}: ssh failed: {said}")
        });
    };
    Some(format!("host {host}: {what} ({said})"))
}

/// A remote shell that printed `text` on the agent's stdout before the
/// agent's first frame.
pub fn banner(host: &str, text: &[u8]) -> String {
    let s = String::from_utf8_lossy(text);
    let first = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let shown: String = first.chars().take(60).collect();
    format!("host {host}: the remote shell printed '{shown}' before the agent; make the login quiet (no output from .bashrc, .profile or the MOTD for a command)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssh_failures_name_the_host_and_what_to_do() {
        let k = refusal("h1", true, Some(255), "Host key verification failed.\r\n");
        assert!(
            k.starts_with("host h1: ssh does not know the host's key"),
            "{k}"
        );
        let p = refusal(
            "h1",
            true,
            Some(255),
            "bob@10.0.0.1: Permission denied (publickey).\n",
        );
        assert!(
            p.contains("login as bob (Permission denied (publickey))"),
            "{p}"
        );
        let c = refusal(
            "h2",
            true,
            Some(255),
            "ssh: connect to host 127.0.0.1 port 1: Connection refused\n",
        );
        assert!(c.contains("host h2: ssh's connection was refused"), "{c}");
        let n = refusal(
            "h3",
            true,
            Some(255),
            "ssh: Could not resolve hostname h3: Name or service not known\n",
        );
        assert!(n.contains("could not resolve"), "{n}");
    }

    #[test]
    fn no_agent_and_other_ends_are_told_apart() {
        let n = refusal(
            "h1",
            true,
            Some(127),
            "bash: line 1: iolab: command not found\n",
        );
        assert!(n.contains("no iolab in the remote PATH"), "{n}");
        let o = refusal("h1", false, Some(1), "boom\n");
        assert!(o.contains("(exit 1): boom"), "{o}");
        let b = banner("h1", b"\nWelcome to h1!\nmore");
        assert!(b.contains("printed 'Welcome to h1!'"), "{b}");
    }
}
