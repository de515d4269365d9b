//! Multi-host runs (docs/multi-host.md). The controller starts
//! `iolab agent --stdio` on every host through an existing remote-execution
//! channel (OpenSSH by default, or any `--remote-shell`), and speaks the
//! protocol of [`proto`] over the agent's stdin and stdout: no daemon, no
//! listening port, no authentication of iolab's own (the channel's).
//!
//! - [`proto`]: the messages and their frames (the only parser that reads
//!   bytes from another host);
//! - [`channel`]: how an agent is started on a host (ssh, a remote-shell
//!   template, `--push`), and the one line a refused connection becomes;
//! - [`process`]: a channel's local process (its own process group, its
//!   stderr's end kept, killed with its group);
//! - [`series`]: a run's interval series streamed once, `Done`'s
//!   corrections and the controller's rebuild;
//! - [`text`]: an agent's text made fit to print and keep;
//! - [`refuse`]: the one line a failed connection becomes;
//! - [`link`]: one connected agent as the controller sees it: a writer, a
//!   reader thread, heartbeats, liveness, the clock offset.

pub mod channel;
pub mod link;
pub mod process;
pub mod proto;
pub mod refuse;
pub mod series;
pub mod text;

pub use proto::{FromAgent, ToAgent, PROTOCOL};
