//! The agent protocol, version [`PROTOCOL`] (docs/multi-host.md).
//!
//! Every message is one frame: the four bytes `iolb`, the payload's length
//! as a 32-bit big-endian number, then the payload, one JSON object whose
//! `type` names the message. The magic catches a remote shell that prints
//! anything of its own on the agent's stdout (a login banner, a `.bashrc`
//! echo) before it is taken for a length. The controller speaks first
//! ([`ToAgent::Hello`]); the agent answers with its own hello and refuses,
//! like the controller, a protocol or iolab version other than its own.
//!
//! Reading is bounded: a length above [`MAX_FRAME`] is refused before
//! anything is allocated, and a payload is parsed only once whole.

use iolab_raw::{EventRaw, IntervalRaw, RunRaw};
use iolab_report::model::{DeviceInterval, Host, RunResult};
use iolab_spec::RunSpec;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::io::{self, Read, Write};

/// The protocol's version: both sides refuse any other.
pub const PROTOCOL: u32 = 1;

/// iolab's version, which both sides also compare.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The bytes every frame starts with.
pub const MAGIC: [u8; 4] = *b"iolb";

/// The largest payload either side accepts (a long run's raw results, every
/// interval's histograms, fit many times over).
pub const MAX_FRAME: usize = 256 << 20;

/// What the controller sends an agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToAgent {
    /// The first message. The agent sends a heartbeat every `heartbeat_ms`
    /// and, having heard nothing from the controller for `timeout_ms`,
    /// stops its run (keeping nothing: the controller is gone) and exits.
    Hello {
        protocol: u32,
        version: String,
        heartbeat_ms: u64,
        timeout_ms: u64,
    },
    /// A clock probe: the agent answers [`FromAgent::Pong`] at once with
    /// its clock.
    Ping { seq: u32 },
    /// Check and set up run `index` of the plan (this host's targets and
    /// `destroy_data_on` already in `spec`): the agent applies iolab's
    /// safety rules to its own devices, answers [`FromAgent::Refused`] or
    /// sets every worker up and answers [`FromAgent::Ready`], then waits
    /// for [`ToAgent::Start`].
    Run { index: u32, spec: RunSpec },
    /// Start run `index`'s clock at `at_ns`: the agent's `CLOCK_REALTIME`,
    /// nanoseconds since the Unix epoch.
    Start { index: u32, at_ns: i64 },
    /// Stop the run in progress (or the one set up), keeping what it
    /// measured: the agent still sends [`FromAgent::Done`].
    Stop,
    /// The controller is alive.
    Heartbeat,
    /// The session is over: the agent exits 0.
    Bye,
}

/// What an agent sends the controller.
// Sent a few times per interval at most: the size of the largest variant
// does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromAgent {
    /// The answer to the controller's hello: the agent's versions and the
    /// machine it runs on.
    Hello {
        protocol: u32,
        version: String,
        /// `uname -m`'s machine, e.g. `x86_64`.
        arch: String,
        host: Host,
        pid: u32,
    },
    /// The answer to [`ToAgent::Ping`]: the agent's `CLOCK_REALTIME` when
    /// it read the ping, nanoseconds since the Unix epoch.
    Pong { seq: u32, clock_ns: i64 },
    /// Run `index` will not run here (a target iolab's rules refuse on
    /// this host, a set-up failure; a hello with another version, with
    /// `index` absent): one line saying what and what to do.
    Refused { index: Option<u32>, message: String },
    /// Run `index` as known before its first I/O (the run core's
    /// `measuring`): workloads, settings that took effect, no figures.
    Measuring { index: u32, raw: RunRaw },
    /// Every worker of run `index` is set up and waiting for the start.
    Ready { index: u32 },
    /// Run `index`'s clock started at `at_ns` (the agent's clock).
    Started { index: u32, at_ns: i64 },
    /// A note about the run (fallbacks, prefill, ...).
    Note { index: u32, message: String },
    /// How a fileset's creation or a prefill before run `index` goes, as
    /// the line a local run's log shows (a line every few seconds and a
    /// last one; an addition to protocol 1).
    Progress { index: u32, message: String },
    /// Interval `total.index` of run `index` closed: the whole host's
    /// figures and each workload's, as the run core reports them.
    Interval {
        index: u32,
        total: IntervalRaw,
        workloads: Vec<Option<IntervalRaw>>,
    },
    /// An event marked on the host during run `index`.
    Event { index: u32, event: EventRaw },
    /// Part of run `index`'s device statistics, interval by interval (in
    /// order, at most [`crate::series::DEVICE_CHUNK`] a message), sent
    /// before a `Done` with `streamed` in place of its
    /// `result.devices.intervals` (an addition to protocol 1).
    Devices {
        index: u32,
        intervals: Vec<DeviceInterval>,
    },
    /// Run `index` ended: its raw results (every histogram, for exact
    /// merging) and the host's own result record (with its device
    /// statistics), as a local run would have recorded it. With
    /// `streamed` (an addition to protocol 1; absent means false), the
    /// raw's and the record's interval series (the run's and each
    /// workload's) are left out: they are the run's `Interval` messages
    /// with `corrections` applied, the final figures of the intervals that
    /// changed after they were sent ([`crate::series`]), so a long run's
    /// `Done` stays small.
    Done {
        index: u32,
        raw: RunRaw,
        result: RunResult,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        streamed: bool,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        corrections: Vec<crate::series::Correction>,
    },
    /// The agent is alive.
    Heartbeat,
    /// The agent cannot go on (a malformed message, a lost controller)
    /// and exits after this.
    Error { message: String },
}

/// Why a frame could not be read.
#[derive(Debug)]
pub enum FrameError {
    /// The stream ended cleanly between two frames.
    Eof,
    /// The stream ended inside a frame.
    Truncated {
        wanted: usize,
        got: usize,
    },
    /// The frame did not start with [`MAGIC`]: what it started with.
    BadMagic([u8; 4]),
    /// A length above [`MAX_FRAME`].
    TooLarge(usize),
    /// A whole payload that is not a message of this protocol.
    BadMessage(String),
    Io(io::Error),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Eof => write!(f, "the stream ended"),
            FrameError::Truncated { wanted, got } => write!(
                f,
                "the stream ended inside a frame ({got} of {wanted} bytes)"
            ),
            FrameError::BadMagic(b) => write!(
                f,
                "a frame did not start with iolab's protocol marker but with {:?}",
                String::from_utf8_lossy(b)
            ),
            FrameError::TooLarge(n) => write!(
                f,
                "a frame of {n} bytes is above the protocol's limit of {MAX_FRAME}"
            ),
            FrameError::BadMessage(e) => write!(f, "a malformed message: {e}"),
            FrameError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Write `msg` as one frame and flush.
pub fn write_frame<W: Write, M: Serialize>(w: &mut W, msg: &M) -> io::Result<()> {
    let payload = serde_json::to_vec(msg).map_err(io::Error::other)?;
    if payload.len() > MAX_FRAME {
        return Err(io::Error::other(format!(
            "a message of {} bytes is above the protocol's limit of {MAX_FRAME}",
            payload.len()
        )));
    }
    let mut head = [0u8; 8];
    head[..4].copy_from_slice(&MAGIC);
    head[4..].copy_from_slice(&(payload.len() as u32).to_be_bytes());
    w.write_all(&head)?;
    w.write_all(&payload)?;
    w.flush()
}

/// Fill `buf` from `r`: how many bytes arrived before the end of the
/// stream.
fn fill<R: Read>(r: &mut R, buf: &mut [u8]) -> Result<usize, FrameError> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(FrameError::Io(e)),
        }
    }
    Ok(got)
}

/// Read one frame's payload. The length is checked against [`MAX_FRAME`]
/// before the payload is allocated.
pub fn read_frame<R: Read>(r: &mut R) -> Result<Vec<u8>, FrameError> {
    let mut head = [0u8; 8];
    match fill(r, &mut head)? {
        0 => return Err(FrameError::Eof),
        8 => {}
        got => {
            if got >= 4 && head[..4] != MAGIC {
                return Err(FrameError::BadMagic(
                    head[..4].try_into().unwrap_or_default(),
                ));
            }
            return Err(FrameError::Truncated { wanted: 8, got });
        }
    }
    if head[..4] != MAGIC {
        return Err(FrameError::BadMagic(
            head[..4].try_into().unwrap_or_default(),
        ));
    }
    let len = u32::from_be_bytes(head[4..].try_into().unwrap_or_default()) as usize;
    if len > MAX_FRAME {
        return Err(FrameError::TooLarge(len));
    }
    // Grown as the payload arrives (at most doubling), so a length
    // within the limit but never followed by its bytes costs nothing.
    let mut payload: Vec<u8> = Vec::new();
    while payload.len() < len {
        let start = payload.len();
        let want = (len - start).min(start.max(READ_CHUNK));
        payload.reserve_exact(want);
        payload.resize(start + want, 0);
        let got = fill(r, &mut payload[start..])?;
        if got < want {
            return Err(FrameError::Truncated {
                wanted: len,
                got: start + got,
            });
        }
    }
    Ok(payload)
}

/// The first piece of a payload read: a frame's memory grows with what
/// has arrived, not with the length it claims.
const READ_CHUNK: usize = 64 << 10;

/// Parse a payload as a message.
pub fn decode<M: DeserializeOwned>(payload: &[u8]) -> Result<M, FrameError> {
    serde_json::from_slice(payload).map_err(|e| FrameError::BadMessage(e.to_string()))
}

/// Read and parse one message.
pub fn read_message<R: Read, M: DeserializeOwned>(r: &mut R) -> Result<M, FrameError> {
    decode(&read_frame(r)?)
}

/// Every message an agent would read from `bytes`, up to the first frame
/// that fails (included): the agent's parser as the fuzz target sees it.
pub fn parse_agent_stream(bytes: &[u8]) -> Vec<Result<ToAgent, FrameError>> {
    let mut r = bytes;
    let mut out = Vec::new();
    loop {
        match read_message::<_, ToAgent>(&mut r) {
            Err(FrameError::Eof) => return out,
            Err(e) => {
                out.push(Err(e));
                return out;
            }
            Ok(m) => out.push(Ok(m)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_of(m: &ToAgent) -> Vec<u8> {
        let mut v = Vec::new();
        write_frame(&mut v, m).unwrap();
        v
    }

    #[test]
    fn a_message_reads_back_as_written() {
        let m = ToAgent::Start {
            index: 3,
            at_ns: 1_700_000_000_123_456_789,
        };
        let got = parse_agent_stream(&frame_of(&m));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].as_ref().unwrap(), &m);
    }

    #[test]
    fn a_truncated_frame_is_said_with_its_sizes() {
        let mut b = frame_of(&ToAgent::Ping { seq: 1 });
        b.truncate(b.len() - 2);
        match read_message::<_, ToAgent>(&mut b.as_slice()) {
            Err(FrameError::Truncated { wanted, got }) => assert_eq!(wanted, got + 2),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_huge_length_is_refused_before_allocating() {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&u32::MAX.to_be_bytes());
        assert!(matches!(
            read_frame(&mut b.as_slice()),
            Err(FrameError::TooLarge(n)) if n == u32::MAX as usize
        ));
    }

    #[test]
    fn a_claimed_length_without_its_bytes_is_truncated() {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&(200u32 << 20).to_be_bytes());
        b.extend_from_slice(b"{\"type\"");
        match read_frame(&mut b.as_slice()) {
            Err(FrameError::Truncated { wanted, got }) => {
                assert_eq!((wanted, got), (200 << 20, 7))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn text_before_the_first_frame_is_bad_magic() {
        let b = b"Welcome to host1\n".to_vec();
        let e = read_frame(&mut b.as_slice()).unwrap_err();
        assert!(e.to_string().contains("Welc"), "{e}");
    }

    #[test]
    fn an_interval_with_latencies_reads_back_from_the_agent() {
        // Histograms carry u128 sums, which a tagged enum's buffering
        // cannot hold unless they are read with deserialize_any.
        let mut total = IntervalRaw::empty(2, 0, 1_000_000_000, false);
        total.ops = iolab_raw::OpStats::rw(false);
        let d = total.ops.get_mut(iolab_raw::Op::Read).unwrap();
        (d.ops, d.bytes) = (1, 4096);
        d.lat.record(12_345);
        let m = FromAgent::Interval {
            index: 0,
            total,
            workloads: vec![None],
        };
        let mut b = Vec::new();
        write_frame(&mut b, &m).unwrap();
        match read_message::<_, FromAgent>(&mut b.as_slice()) {
            Ok(FromAgent::Interval { total, .. }) => {
                assert_eq!(total.ops.read().lat.sum(), 12_345)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_unknown_message_type_is_malformed() {
        let payload = br#"{"type":"format_disk"}"#;
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        b.extend_from_slice(payload);
        let got = parse_agent_stream(&b);
        assert!(matches!(got[0], Err(FrameError::BadMessage(_))));
    }
}
