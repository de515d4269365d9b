//! The fleet's queue of what hosts said: bounded ([`MAX_MESSAGES`]
//! messages, [`MAX_BYTES`] of frames; one message always fits), so a
//! host sending faster than the controller takes makes its reader wait,
//! which stops reading its stream: the pipe, ssh and TCP carry the
//! backpressure to the agent, and the controller's memory stays bounded.
//! Each host's [`LinkEvent::Lost`] never waits (room is kept for one a
//! host) and is atomic with the host's messages: none follows it.

use super::LinkEvent;
use crate::proto::FromAgent;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// Messages in the queue, at most.
pub const MAX_MESSAGES: usize = 1024;
/// Bytes of frames in the queue, at most (one message always fits).
pub const MAX_BYTES: usize = 64 << 20;
/// How often a waiting reader looks whether it should give up.
const WAIT_TICK: Duration = Duration::from_millis(100);

/// (host, event, its frame's size).
type Item = (usize, LinkEvent, usize);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the queue holds: (messages, bytes), and a signal when it shrinks.
#[derive(Default)]
struct Room {
    used: Mutex<(usize, usize)>,
    freed: Condvar,
}

/// The controller's end.
pub struct Queue {
    rx: Mutex<Receiver<Item>>,
    tx: SyncSender<Item>,
    room: Arc<Room>,
}

impl Queue {
    /// A queue for `hosts` hosts.
    pub fn new(hosts: usize) -> Queue {
        let (tx, rx) = mpsc::sync_channel(MAX_MESSAGES + hosts);
        Queue {
            rx: Mutex::new(rx),
            tx,
            room: Arc::default(),
        }
    }

    /// Host `index`'s end.
    pub fn outbox(&self, index: usize) -> Outbox {
        Outbox {
            index,
            tx: self.tx.clone(),
            room: self.room.clone(),
            gate: Mutex::new(()),
            lost: AtomicBool::new(false),
        }
    }

    /// The next event, waiting at most `d`.
    pub fn recv_timeout(&self, d: Duration) -> Option<(usize, LinkEvent)> {
        let (i, ev, bytes) = lock(&self.rx).recv_timeout(d).ok()?;
        if matches!(ev, LinkEvent::Message(_)) {
            self.room.give(bytes);
        }
        Some((i, ev))
    }
}

impl Room {
    /// Take room for a message of `bytes`, waiting while `wait()` says
    /// so (it is called every tick of waiting); whether it was taken.
    fn take(&self, bytes: usize, mut wait: impl FnMut() -> bool) -> bool {
        let mut u = lock(&self.used);
        loop {
            if u.0 == 0 || (u.0 < MAX_MESSAGES && u.1 + bytes <= MAX_BYTES) {
                u.0 += 1;
                u.1 += bytes;
                return true;
            }
            if !wait() {
                return false;
            }
            u = self
                .freed
                .wait_timeout(u, WAIT_TICK)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    fn give(&self, bytes: usize) {
        let mut u = lock(&self.used);
        u.0 = u.0.saturating_sub(1);
        u.1 = u.1.saturating_sub(bytes);
        self.freed.notify_all();
    }
}

/// One host's end: its reader's messages, and its loss from any thread.
pub struct Outbox {
    index: usize,
    tx: SyncSender<Item>,
    room: Arc<Room>,
    /// Held around "not lost yet? then queue" and "lost now, queue Lost".
    gate: Mutex<()>,
    lost: AtomicBool,
}

impl Outbox {
    /// Queue message `m` (a frame of `bytes`), waiting for room while
    /// `wait()` says so (a waiting host is not silent: the controller is
    /// behind). False when the host is lost (the message is dropped), the
    /// wait was given up or the fleet is gone: the reader ends.
    pub fn send(&self, m: FromAgent, bytes: usize, wait: impl FnMut() -> bool) -> bool {
        let mut wait = wait;
        if !self.room.take(bytes, || !self.is_lost() && wait()) {
            return false;
        }
        let _g = lock(&self.gate);
        if self.is_lost() {
            self.room.give(bytes);
            return false;
        }
        let item = (self.index, LinkEvent::Message(Box::new(m)), bytes);
        match self.tx.try_send(item) {
            Ok(()) => true,
            // Full cannot be (room was taken); either way it is dropped.
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.room.give(bytes);
                false
            }
        }
    }

    /// Say the host lost with `reason`, after everything queued of it and
    /// without waiting; false when it already was.
    pub fn lose(&self, reason: String) -> bool {
        let _g = lock(&self.gate);
        if self.lost.swap(true, Ordering::SeqCst) {
            return false;
        }
        let at = std::time::SystemTime::now();
        let _ = self
            .tx
            .try_send((self.index, LinkEvent::Lost { at, reason }, 0));
        // A reader waiting for room gives up now.
        self.room.freed.notify_all();
        true
    }

    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Instant;

    fn note(n: usize) -> FromAgent {
        FromAgent::Note {
            index: n as u32,
            message: String::new(),
        }
    }

    #[test]
    fn a_full_queue_makes_the_sender_wait_and_a_loss_still_gets_through() {
        let q = Queue::new(2);
        let out = Arc::new(q.outbox(1));
        let sent = Arc::new(AtomicUsize::new(0));
        let (o, s) = (out.clone(), sent.clone());
        let t = std::thread::spawn(move || {
            for n in 0..5000 {
                if !o.send(note(n), 10, || true) {
                    return;
                }
                s.fetch_add(1, Ordering::SeqCst);
            }
        });
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(sent.load(Ordering::SeqCst), MAX_MESSAGES);
        // The loss neither waits for room nor for the waiting sender.
        let t0 = Instant::now();
        assert!(out.lose("gone".into()));
        assert!(
            t0.elapsed() < Duration::from_millis(50),
            "{:?}",
            t0.elapsed()
        );
        t.join().unwrap();
        assert!(!out.lose("again".into()));
        let mut got = Vec::new();
        while let Some((i, ev)) = q.recv_timeout(Duration::from_millis(10)) {
            assert_eq!(i, 1);
            got.push(ev);
        }
        assert_eq!(got.len(), MAX_MESSAGES + 1);
        assert!(matches!(got.last(), Some(LinkEvent::Lost { reason, .. }) if reason == "gone"));
        // Every message in order.
        for (n, ev) in got[..MAX_MESSAGES].iter().enumerate() {
            match ev {
                LinkEvent::Message(m) => {
                    assert!(matches!(**m, FromAgent::Note { index, .. } if index as usize == n))
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn bytes_are_bounded_but_one_message_always_fits() {
        let q = Queue::new(1);
        let out = q.outbox(0);
        assert!(out.send(note(0), MAX_BYTES * 2, || true));
        // A second one waits; a wait given up is no message.
        let mut ticks = 0;
        assert!(!out.send(note(1), 1, || {
            ticks += 1;
            ticks < 3
        }));
        assert!(q.recv_timeout(Duration::ZERO).is_some());
        assert!(out.send(note(2), MAX_BYTES, || false));
        assert!(!out.send(note(3), 1, || false));
    }

    #[test]
    fn nothing_of_a_host_follows_its_loss() {
        for round in 0..100 {
            let q = Queue::new(1);
            let out = Arc::new(q.outbox(0));
            let o = out.clone();
            let t = std::thread::spawn(move || {
                for n in 0..MAX_MESSAGES / 2 {
                    if !o.send(note(n), 1, || true) {
                        break;
                    }
                }
            });
            std::thread::sleep(Duration::from_micros(round * 7 % 500));
            out.lose("x".into());
            t.join().unwrap();
            let mut after = false;
            while let Some((_, ev)) = q.recv_timeout(Duration::ZERO) {
                assert!(!after, "a message after the loss (round {round})");
                after = matches!(ev, LinkEvent::Lost { .. });
            }
            assert!(after, "no loss (round {round})");
        }
    }
}
