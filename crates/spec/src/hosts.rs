//! The hosts of a multi-host run (docs/multi-host.md): who they are, how
//! the channel reaches them, and which targets are whose.
//!
//! A target or a `destroy_data_on` name may be qualified by a host,
//! `HOST:PATH` (`--target h1:/dev/sdb`, a job file's
//! `target = { h1 = "/dev/sdb" }`): it is that host's only. A name
//! without a host is the same path on every host.

use serde::{Deserialize, Serialize};

/// One host of a run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HostSpec {
    /// As the user named it: the key of per-host targets and `HOST:`
    /// prefixes, and `hosts[].host` in the result document.
    pub name: String,
    /// What the channel connects to when it is not `name` (vdbench's
    /// `system=`; an address); `None`: `name` (an ssh alias works).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// This host's own targets, from a host file's line (as if given as
    /// `--target NAME:PATH`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<String>,
    /// A host file's `start_delay=TIME`: this host's workloads start this
    /// much later than the common start (added to each workload's own
    /// `start_delay`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_delay_s: Option<f64>,
}

impl HostSpec {
    pub fn named(name: &str) -> HostSpec {
        HostSpec {
            name: name.to_string(),
            ..Default::default()
        }
    }

    /// What the channel connects to.
    pub fn address(&self) -> &str {
        self.address.as_deref().unwrap_or(&self.name)
    }
}

/// The host a `HOST:PATH` name is qualified by, if `HOST` is one of
/// `hosts`, and the path; `(None, name)` for a name of every host.
/// The longest host name that prefixes `name` with a ':' wins, so that a
/// host named by an IPv6 address (`fe80::1:/dev/sdb`) is found too.
pub fn split_host<'a>(name: &'a str, hosts: &[HostSpec]) -> (Option<&'a str>, &'a str) {
    let host = hosts
        .iter()
        .filter(|x| {
            name.strip_prefix(x.name.as_str())
                .is_some_and(|rest| rest.starts_with(':'))
        })
        .max_by_key(|x| x.name.len());
    match host {
        Some(x) => (Some(&name[..x.name.len()]), &name[x.name.len() + 1..]),
        None => (None, name),
    }
}

/// The names of `names` that are `host`'s: its own (`HOST:PATH`, prefix
/// removed) and those of every host, in order.
pub fn names_for_host(names: &[String], host: &str, hosts: &[HostSpec]) -> Vec<String> {
    names
        .iter()
        .filter_map(|n| match split_host(n, hosts) {
            (Some(h), p) if h == host => Some(p.to_string()),
            (Some(_), _) => None,
            (None, p) => Some(p.to_string()),
        })
        .collect()
}

/// Hosts in a host file, a list, a job file: a limit on how many.
pub const MAX_HOSTS: usize = 4096;

/// One host as written on the command line or at the start of a host
/// file's line: `[USER@]HOST[:PORT]`, `[USER@][ADDR]:PORT` for an IPv6
/// address. The name the user gave (`hosts[].host`, `HOST:` prefixes) is
/// HOST without user and port.
pub fn parse_host(s: &str) -> Result<HostSpec, String> {
    let s = s.trim();
    let (user, rest) = match s.rsplit_once('@') {
        Some((u, r)) if !u.is_empty() => (Some(u.to_string()), r),
        Some(_) => return Err(format!("host '{s}' has an empty user before '@'")),
        None => (None, s),
    };
    if let Some(u) = &user {
        check_user(s, u)?;
    }
    let (name, port) = if let Some(r) = rest.strip_prefix('[') {
        let (addr, after) = r
            .split_once(']')
            .ok_or_else(|| format!("host '{s}' opens '[' without closing it"))?;
        match after {
            "" => (addr, None),
            p => (addr, Some(p.strip_prefix(':').unwrap_or(p))),
        }
    } else if rest.matches(':').count() == 1 {
        let (h, p) = rest.split_once(':').unwrap_or((rest, ""));
        (h, Some(p))
    } else {
        (rest, None)
    };
    let port = match port {
        None => None,
        Some(p) => Some(p.parse::<u16>().ok().filter(|&p| p > 0).ok_or_else(|| {
            format!("host '{s}': '{p}' is not a port; give [USER@]HOST[:PORT] with PORT from 1 to 65535")
        })?),
    };
    let ok = |c: char| c.is_ascii_alphanumeric() || "-._:%".contains(c);
    if name.is_empty() || !name.chars().all(ok) || name.starts_with('-') {
        return Err(format!(
            "'{s}' is not a host; give [USER@]HOST[:PORT] (a name, an ssh alias or an address)"
        ));
    }
    Ok(HostSpec {
        name: name.to_string(),
        address: None,
        user,
        port,
        targets: Vec::new(),
        start_delay_s: None,
    })
}

/// A user name ssh may be given (`-l`, `%r` in a ProxyCommand): letters,
/// digits, `.`, `_`, `-` (not first), and `@` or `\\` of a domain user;
/// nothing a shell or ssh would read otherwise.
fn check_user(s: &str, u: &str) -> Result<(), String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || "._-@\\".contains(c);
    if u.starts_with('-') || !u.chars().all(ok) {
        return Err(format!(
            "host '{}': '{}' is not a user name; give letters, digits, '.', '_', '-' (not first), '@' or '\\' only",
            s.escape_debug(),
            u.escape_debug()
        ));
    }
    Ok(())
}

/// A host file: one host a line, `[USER@]HOST[:PORT] [PATH...]` with the
/// host's own targets after it; blank lines and `#` comments are skipped.
/// A host named twice is an error.
pub fn parse_hosts_file(text: &str) -> Result<Vec<HostSpec>, String> {
    let mut hosts: Vec<HostSpec> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else { continue };
        let at = |e: String| format!("line {}: {e}", i + 1);
        let mut h = parse_host(first).map_err(at)?;
        for w in words {
            match w.strip_prefix("start_delay=") {
                Some(t) => h.start_delay_s = Some(parse_start_delay(&h.name, t).map_err(at)?),
                None => h.targets.push(w.to_string()),
            }
        }
        add_host(&mut hosts, h).map_err(at)?;
    }
    Ok(hosts)
}

/// A host's `start_delay=TIME`: a duration, at most a day.
fn parse_start_delay(host: &str, t: &str) -> Result<f64, String> {
    let d = crate::parse_duration(t).map_err(|e| {
        format!("host {host}: start_delay={t}: {e}; give a time such as 500ms or 5s")
    })?;
    if d.as_secs_f64() > 86_400.0 {
        return Err(format!(
            "host {host}: start_delay={t} is more than a day; give a shorter delay"
        ));
    }
    Ok(d.as_secs_f64())
}

/// Add `h` to `hosts`, refusing a second host of the same name and more
/// than [`MAX_HOSTS`].
pub fn add_host(hosts: &mut Vec<HostSpec>, h: HostSpec) -> Result<(), String> {
    if hosts.iter().any(|x| x.name == h.name) {
        return Err(format!(
            "host '{}' is named twice; name each host once",
            h.name
        ));
    }
    if hosts.len() >= MAX_HOSTS {
        return Err(format!("more than {MAX_HOSTS} hosts; split the run"));
    }
    hosts.push(h);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_forms() {
        let h = parse_host("root@db1:2222").unwrap();
        assert_eq!(
            (h.name.as_str(), h.user.as_deref(), h.port),
            ("db1", Some("root"), Some(2222))
        );
        let h = parse_host("[fe80::1%eth0]:22").unwrap();
        assert_eq!((h.name.as_str(), h.port), ("fe80::1%eth0", Some(22)));
        assert_eq!(parse_host("::1").unwrap().name, "::1");
        assert!(parse_host("h:0").is_err());
        assert!(parse_host("-oProxyCommand=x").is_err());
        assert!(parse_host("a b").is_err());
        assert_eq!(
            parse_host("CORP\\bob.x@ad@h1").unwrap().user.as_deref(),
            Some("CORP\\bob.x@ad")
        );
        for bad in [
            "-oProxy@h1",
            "$(id)@h1",
            "'b'@h1",
            "a\tb@h1",
            "b\u{1b}]0;x@h1",
            "é@h1",
        ] {
            let e = parse_host(bad).unwrap_err();
            assert!(e.contains("is not a user name"), "{bad}: {e}");
        }
        let hs = parse_hosts_file("# fleet\nh1 /dev/sdb\n\nroot@h2:22 /dev/sdc /dev/sdd # two\n")
            .unwrap();
        assert_eq!(hs.len(), 2);
        assert_eq!(hs[1].targets, vec!["/dev/sdc", "/dev/sdd"]);
        let hs = parse_hosts_file("h1 /dev/sdb start_delay=2s\nh2\n").unwrap();
        assert_eq!(
            (hs[0].start_delay_s, hs[1].start_delay_s),
            (Some(2.0), None)
        );
        assert_eq!(hs[0].targets, vec!["/dev/sdb"]);
        let e = parse_hosts_file("h1 start_delay=soon\n").unwrap_err();
        assert!(e.starts_with("line 1: host h1: start_delay=soon"), "{e}");
        let e = parse_hosts_file("h1\nh1\n").unwrap_err();
        assert!(e.starts_with("line 2: host 'h1' is named twice"), "{e}");
    }

    #[test]
    fn qualified_names_go_to_their_host_only() {
        let hosts = [HostSpec::named("h1"), HostSpec::named("h2")];
        let names = vec![
            "h1:/dev/sdb".to_string(),
            "h2:/dev/mapper/mpatha".to_string(),
            "/dev/sdz".to_string(),
        ];
        assert_eq!(
            names_for_host(&names, "h1", &hosts),
            vec!["/dev/sdb", "/dev/sdz"]
        );
        assert_eq!(
            names_for_host(&names, "h2", &hosts),
            vec!["/dev/mapper/mpatha", "/dev/sdz"]
        );
        // A prefix that names no host is part of the path.
        assert_eq!(split_host("h3:/x", &hosts), (None, "h3:/x"));
        // A host named by an IPv6 address: the longest name wins.
        let v6 = [HostSpec::named("fe80::1"), HostSpec::named("fe80")];
        assert_eq!(
            split_host("fe80::1:/dev/sdb", &v6),
            (Some("fe80::1"), "/dev/sdb")
        );
        assert_eq!(split_host("fe80:/dev/sdc", &v6), (Some("fe80"), "/dev/sdc"));
    }
}
