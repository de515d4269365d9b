//! The controller's side of the agents: every host connected in
//! parallel (started through the [`Channel`], hello and versions
//! compared, clock offset measured), one writer per agent, one reader
//! thread per agent feeding a single queue, heartbeats both ways and the
//! loss of a host when it stops answering.

use crate::channel::Channel;
use crate::proto::{FromAgent, ToAgent};
use iolab_report::model::Host;
use iolab_spec::HostSpec;
use std::time::{Duration, SystemTime};

/// Heartbeats and the silence after which a host is lost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkOptions {
    /// How often each side sends a heartbeat.
    pub heartbeat: Duration,
    /// A host that sent nothing for this long is lost (`--host-timeout`);
    /// an agent that heard nothing from the controller for this long
    /// stops and exits.
    pub timeout: Duration,
    /// Clock probes per measurement; the sample of least delay counts.
    pub clock_rounds: u32,
}

impl Default for LinkOptions {
    fn default() -> Self {
        LinkOptions {
            heartbeat: Duration::from_secs(1),
            timeout: Duration::from_secs(10),
            clock_rounds: 16,
        }
    }
}

/// A host's clock against the controller's, from its least-delay probe.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ClockOffset {
    /// The agent's `CLOCK_REALTIME` minus the controller's, nanoseconds.
    pub offset_ns: i64,
    /// The round trip of that probe: the offset is known within half of
    /// it.
    pub rtt_ns: u64,
}

/// What the agent said in its hello.
#[derive(Debug, Clone)]
pub struct AgentInfo {
    pub version: String,
    pub arch: String,
    pub host: Host,
    pub pid: u32,
}

/// Something from host `i` of the fleet.
#[derive(Debug)]
pub enum LinkEvent {
    /// A message (heartbeats and pongs are taken by the link itself).
    Message(Box<FromAgent>),
    /// The host stopped answering or its channel ended: said once, with
    /// when and why ("no heartbeat for 10 s", "the agent's channel
    /// closed: ...").
    Lost { at: SystemTime, reason: String },
}

/// Every connected host.
pub struct Fleet {
    _private: (),
}

impl Fleet {
    /// Start and greet an agent on every host, in parallel; measure each
    /// clock. The first failure (a refused connection, a version other
    /// than ours, another architecture with `--push`) is one line naming
    /// the host, and every agent already started is stopped.
    pub fn connect(
        _hosts: &[HostSpec],
        _channel: &Channel,
        _opts: &LinkOptions,
    ) -> Result<Fleet, String> {
        Err("multi-host runs are not built yet".into())
    }

    /// The hosts, in the order given.
    pub fn hosts(&self) -> &[HostSpec] {
        &[]
    }

    /// Host `i`'s hello.
    pub fn info(&self, _i: usize) -> &AgentInfo {
        unreachable!("no fleet is built yet")
    }

    /// Measure every live host's clock again (before each run).
    pub fn sync_clocks(&mut self) -> Vec<Option<ClockOffset>> {
        Vec::new()
    }

    /// Host `i`'s last measured clock.
    pub fn clock(&self, _i: usize) -> Option<ClockOffset> {
        None
    }

    /// Send `m` to host `i`; an error when it is lost.
    pub fn send(&self, _i: usize, _m: &ToAgent) -> Result<(), String> {
        Err("not built".into())
    }

    /// Whether host `i` was lost.
    pub fn is_lost(&self, _i: usize) -> bool {
        true
    }

    /// The next event from any host, waiting at most `d`.
    pub fn recv_timeout(&self, _d: Duration) -> Option<(usize, LinkEvent)> {
        None
    }

    /// End the session: `Bye` to every live agent, wait for the channels
    /// to close (killing what does not within a grace time), remove
    /// pushed binaries. Notes about what had to be forced.
    pub fn close(self) -> Vec<String> {
        Vec::new()
    }
}
