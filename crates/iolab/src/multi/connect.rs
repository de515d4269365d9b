//! Reaching the hosts: the channel and link options from the command
//! line, the fleet connected, one line per host said.

use crate::cli::RemoteArgs;
use iolab_remote::channel::{Channel, Shell};
use iolab_remote::link::{Fleet, LinkOptions};
use iolab_spec::HostSpec;
use std::time::Duration;

/// How the agents are started: `--remote-shell`'s words (split as a
/// shell would, `{host}` kept for the channel to replace), else ssh with
/// `--ssh-config` and `--ssh-option`s.
pub fn channel_of(r: &RemoteArgs) -> Result<Channel, String> {
    let shell = match &r.remote_shell {
        Some(t) => Shell::from_template(t)?,
        None => Shell::Ssh {
            config: r.ssh_config.clone(),
            options: r.ssh_option.clone(),
        },
    };
    Ok(Channel {
        shell,
        agent_path: r.agent_path.clone(),
        push: r.push,
    })
}

/// Heartbeats every quarter of `--host-timeout`, at most every second.
pub fn link_options(r: &RemoteArgs) -> LinkOptions {
    let timeout = r.host_timeout.max(Duration::from_millis(100));
    LinkOptions {
        heartbeat: (timeout / 4).min(Duration::from_secs(1)),
        timeout,
        ..LinkOptions::default()
    }
}

/// Connect every host and say each: version, machine, clock.
pub fn connect(hosts: &[HostSpec], r: &RemoteArgs) -> Result<Fleet, String> {
    let channel = channel_of(r)?;
    let fleet = Fleet::connect(hosts, &channel, &link_options(r))?;
    for (i, h) in hosts.iter().enumerate() {
        eprintln!("iolab: {}", host_line(&h.name, &fleet, i));
    }
    Ok(fleet)
}

/// `h1: iolab 0.9.0 on db1 (x86_64, 16 CPUs), clock +1.234 ms ± 0.150 ms`.
fn host_line(name: &str, fleet: &Fleet, i: usize) -> String {
    let info = fleet.info(i);
    let clock = match fleet.clock(i) {
        Some(c) => format!(
            ", clock {:+.3} ms ± {:.3} ms",
            c.offset_ns as f64 / 1e6,
            c.rtt_ns as f64 / 2e6
        ),
        None => String::new(),
    };
    format!(
        "host {name}: iolab {} on {} ({}, {} CPU{}){clock}",
        info.version,
        info.host.hostname,
        info.arch,
        info.host.cpus,
        if info.host.cpus == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_shell_is_its_words_and_ssh_keeps_the_users_options() {
        let mut r = RemoteArgs {
            remote_shell: Some("  docker exec -i {host} ".into()),
            agent_path: Some("/opt/iolab".into()),
            ..RemoteArgs::default()
        };
        let c = channel_of(&r).unwrap();
        assert_eq!(
            c.shell,
            Shell::Template(vec![
                "docker".into(),
                "exec".into(),
                "-i".into(),
                "{host}".into()
            ])
        );
        assert_eq!(c.agent_path.as_deref(), Some("/opt/iolab"));
        r.remote_shell = Some(" ".into());
        assert!(channel_of(&r)
            .unwrap_err()
            .starts_with("--remote-shell is empty"));
        r.remote_shell = None;
        r.ssh_option = vec!["ConnectTimeout=5".into()];
        let c = channel_of(&r).unwrap();
        assert_eq!(
            c.shell,
            Shell::Ssh {
                config: None,
                options: vec!["ConnectTimeout=5".into()]
            }
        );
    }

    #[test]
    fn heartbeats_are_a_quarter_of_the_timeout_at_most_a_second() {
        let mut r = RemoteArgs::default();
        let o = link_options(&r);
        assert_eq!(
            (o.timeout, o.heartbeat),
            (Duration::from_secs(10), Duration::from_secs(1))
        );
        r.host_timeout = Duration::from_secs(2);
        assert_eq!(link_options(&r).heartbeat, Duration::from_millis(500));
    }
}
