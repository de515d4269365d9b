//! fio's `--client` (docs/fio.md "Several hosts"): the hosts a fio
//! command line names, mapped onto iolab's hosts. fio takes
//! `--client=HOST`, with an optional `ip:`, `ip4:` or `ip6:` before the
//! address and `,PORT` (its server's port) after it, or the path of a
//! file that lists such hosts separated by white space (fio reads it
//! with `fscanf("%s")`: no comments). A `sock:PATH` (fio's local socket)
//! is no host. fio's port is its server's; iolab starts its agent over
//! ssh, on ssh's port, so a port given is reported and not used.

use iolab_spec::HostSpec;

/// One host as fio's `--client=` takes it: the host and the fio server
/// port it named (`None` without one).
pub fn parse_client(s: &str) -> Result<(HostSpec, Option<u16>), String> {
    let s = s.trim();
    if s.starts_with("sock:") {
        return Err(format!(
            "--client={s}: fio's local socket is no host; iolab reaches hosts through ssh (--client=HOST)"
        ));
    }
    let host = ["ip:", "ip4:", "ip6:"]
        .iter()
        .find_map(|p| s.strip_prefix(p))
        .unwrap_or(s);
    let (host, port) = match host.split_once(',') {
        Some((h, p)) => {
            let port = p
                .trim()
                .parse::<u16>()
                .ok()
                .filter(|&p| p > 0)
                .ok_or_else(|| {
                    format!("--client={s}: '{p}' is not a port; fio's form is HOST[,PORT]")
                })?;
            (h, Some(port))
        }
        None => (host, None),
    };
    if host.is_empty() || host.starts_with(':') {
        return Err(format!(
            "--client={s} names no host; give --client=HOST (a name, an ssh alias or an address)"
        ));
    }
    let h = iolab_spec::hosts::parse_host(host).map_err(|e| format!("--client={s}: {e}"))?;
    Ok((h, port))
}

/// The hosts of a fio host list (`--client=FILE`): words separated by
/// white space, each a [`parse_client`] host; a host named twice and
/// more than `MAX_HOSTS` are refused.
pub fn parse_client_list(text: &str) -> Result<Vec<(HostSpec, Option<u16>)>, String> {
    let mut hosts: Vec<HostSpec> = Vec::new();
    let mut ports = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for word in line.split_whitespace() {
            let at = |e: String| format!("line {}: {e}", i + 1);
            let (h, port) = parse_client(word).map_err(at)?;
            iolab_spec::hosts::add_host(&mut hosts, h).map_err(at)?;
            ports.push(port);
        }
    }
    if hosts.is_empty() {
        return Err("the host list names no host; list one host a line".into());
    }
    Ok(hosts.into_iter().zip(ports).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_client_forms() {
        let (h, p) = parse_client("h1").unwrap();
        assert_eq!((h.name.as_str(), p), ("h1", None));
        let (h, p) = parse_client("ip:10.0.0.2,4444").unwrap();
        assert_eq!((h.name.as_str(), p), ("10.0.0.2", Some(4444)));
        let (h, p) = parse_client("ip6:fe80::1,8765").unwrap();
        assert_eq!((h.name.as_str(), p), ("fe80::1", Some(8765)));
        let (h, _) = parse_client("root@db1").unwrap();
        assert_eq!((h.name.as_str(), h.user.as_deref()), ("db1", Some("root")));
        for bad in [
            "sock:/tmp/fio.sock",
            ",4444",
            ":4444",
            "h1,x",
            "h1,0",
            "-oProxyCommand=x",
            "",
        ] {
            let e = parse_client(bad).unwrap_err();
            assert!(!e.contains('\n') && e.contains("--client="), "{bad}: {e}");
        }
    }

    #[test]
    fn fio_host_lists() {
        let l = parse_client_list("host1.example.com\n  h2,8765 h3\n\n").unwrap();
        let names: Vec<&str> = l.iter().map(|(h, _)| h.name.as_str()).collect();
        assert_eq!(names, vec!["host1.example.com", "h2", "h3"]);
        assert_eq!(l[1].1, Some(8765));
        let e = parse_client_list("h1\nh2 h1\n").unwrap_err();
        assert!(e.starts_with("line 2: host 'h1' is named twice"), "{e}");
        assert!(parse_client_list(" \n")
            .unwrap_err()
            .contains("names no host"));
        assert!(parse_client_list("a\nsock:/x\n")
            .unwrap_err()
            .starts_with("line 2:"));
    }
}
