//! The controller's side of the agents: every host connected in
//! parallel (started through the [`crate::channel::Channel`], hello and
//! versions compared, clock offset measured), one writer per agent, one
//! reader thread per agent feeding a single queue, heartbeats both ways
//! and the loss of a host when it stops answering.
//!
//! What a caller can rely on:
//! - `Fleet::connect` takes about as long as the slowest host; each host
//!   has its host timeout, at least 15 s plus 0.25 s a host, to connect
//!   and greet. On any
//!   failure every agent already started is stopped and the error is one
//!   line naming the host as the user named it.
//! - The queue ([`Fleet::recv_timeout`]) has every message but heartbeats
//!   and pongs, in each host's order, and one [`LinkEvent::Lost`] per
//!   host: nothing heard for the timeout ("nothing from its agent for
//!   10.0 s"), the stream ended ("the agent's channel closed (exit 255)")
//!   or failed, or the channel process ended; a lost host's channel is
//!   killed at once and `send` to it is an error.
//! - Messages read before a host's loss come before it in the queue;
//!   nothing of that host follows it.
//! - `close` (or dropping the fleet) sends `Bye`, closes the agents'
//!   stdin, waits 2 s, kills what is left, removes `--push` copies,
//!   ends ssh's master connections and removes their directory. A
//!   controller killed outright leaves no agent either: the channels'
//!   stdin closes and agents exit at its end.

mod fleet;
mod start;

pub use fleet::Fleet;

use crate::proto::FromAgent;
use iolab_report::model::Host;
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

/// `CLOCK_REALTIME` now, nanoseconds since the Unix epoch.
pub fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// Measure a clock with `rounds` probes: `ping(seq)` sends one,
/// `pong(seq)` waits for its answer, (the agent's clock, when it
/// arrived). The probe of least round trip counts; the offset is the
/// agent's clock minus the middle of that round trip.
pub fn measure(
    rounds: u32,
    mut ping: impl FnMut(u32) -> Result<(), String>,
    mut pong: impl FnMut(u32) -> Result<(i64, i64), String>,
) -> Result<ClockOffset, String> {
    let mut best: Option<ClockOffset> = None;
    for seq in 0..rounds.max(1) {
        let t0 = now_ns();
        ping(seq)?;
        let (clock, t1) = pong(seq)?;
        let rtt = (t1 - t0).max(0) as u64;
        let offset_ns = clock - (t0 + (t1 - t0) / 2);
        if best.is_none_or(|b| rtt < b.rtt_ns) {
            best = Some(ClockOffset {
                offset_ns,
                rtt_ns: rtt,
            });
        }
    }
    best.ok_or_else(|| "no probe".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_delay_probe_counts() {
        // An agent 5 ms ahead; probes of 3, 1 and 2 ms (said by the
        // answers' arrival times around a real clock).
        let delays = [3_000_000i64, 1_000_000, 2_000_000];
        let sent = std::cell::Cell::new(0i64);
        let c = measure(
            3,
            |_| {
                sent.set(now_ns());
                Ok(())
            },
            |seq| {
                let d = delays[seq as usize];
                Ok((sent.get() + d / 2 + 5_000_000, sent.get() + d))
            },
        )
        .unwrap();
        assert!((c.rtt_ns as i64 - 1_000_000).abs() < 200_000, "{c:?}");
        assert!((c.offset_ns - 5_000_000).abs() < 200_000, "{c:?}");
    }
}
