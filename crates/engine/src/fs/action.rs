//! The steps of one file-system operation in a slot: [`Exec::begin`]
//! chooses the operation (a weighted draw of the mix, or the flow's next
//! step) and its file, and issues the first request; [`Exec::advance`]
//! takes each result and issues the next request or ends the operation.
//!
//! A mix operation is self-contained: it opens what it needs and closes
//! it (those opens and closes count in the fileset counters, not as
//! operations). In a flow, `create` and `open` make a file the slot's
//! current file, `close` closes it, and read, write, append, rewrite,
//! fsync, fdatasync, getattr and setattr act on it; the other operations
//! choose a file of their own.
//!
//! Files: `create` takes a file that does not exist (`O_CREAT|O_EXCL`),
//! the others one that exists; `mkdir`/`rmdir` work on the file's side
//! directory `f<j>.d`; `rename` moves a file to its side name `f<j>.r`
//! in the same directory (vdbench: to a new name) and the next rename of
//! that file moves it back, so a full fileset always has a target (a
//! file at its side name is neither created on nor used by the other
//! operations; the run's end moves it back, `setup.rs`); `readdir` lists the directory of a file
//! drawn at random until getdents returns 0. Every operation holds a
//! claim on its files (see `table.rs`).
//!
//! Transfers: a whole-file read reads from 0 to the size iolab knows in
//! `xfer` pieces (one `read` operation with all its bytes); a whole-file
//! write writes the layout's size; one transfer goes to an `xfer`-aligned
//! random offset or continues where the slot's last one on that file
//! ended; rewrite stays within the file's size; append writes `xfer`
//! bytes (or 1..=xfer with `random`) at the end. With O_DIRECT transfer
//! lengths are rounded up to 4 KiB.
//!
//! Paths: opens (and readdir's) go from the anchor's descriptor through
//! openat2 with no symbolic link allowed on the way; stat, access,
//! delete, mkdir, rmdir and rename go from a descriptor of the file's
//! leaf directory (the thread's cache, `dirs.rs`) with the file's name
//! alone, so a directory swapped for a symbolic link is never followed.

use super::backend::{Backend, Req};
use super::dirs::{DirCache, NO_ENT};
use super::exec::{Exec, Ph, Slot};
use super::starve::Need;
use super::table::{Claim, DIR, EXISTS, MOVED};
use iolab_spec::Op;
use std::sync::atomic::Ordering::Relaxed;

/// Operations in a row that found no file before the thread gives up,
/// or a second of nothing else (at least 64 of them).
const MAX_SKIPS: u32 = 10_000;
const STARVED_NS: u64 = 1_000_000_000;
/// How long a flow step waits for files other threads hold before it is
/// skipped.
const BUSY_WAIT_NS: u64 = 100_000_000;

impl<B: Backend> Exec<B> {
    /// Start the next operation in idle slot `s`, scheduled at `due`.
    #[inline]
    pub(super) fn begin(&mut self, s: u32, due: u64) {
        self.refused_busy = false;
        let act = self.next_act(s);
        let a = self.plan.acts[act as usize];
        let sl = &mut self.slots[s as usize];
        sl.act = act;
        sl.op = a.op;
        sl.set = a.set;
        sl.claimed = 0;
        sl.claim = Claim::Excl;
        sl.own = false;
        sl.dir_open = false;
        sl.failed = None;
        sl.bytes = 0;
        sl.start = self.now;
        sl.due = due;
        let ok = if self.plan.flow && on_current(a.op) {
            self.begin_current(s)
        } else {
            self.begin_own(s)
        };
        if ok {
            self.active += 1;
            self.skip_streak = 0;
            self.backoff_ns = 0;
            self.last_ok = self.now;
            self.starts += 1;
            self.slots[s as usize].busy_since = 0;
            self.issue(s);
        } else {
            let wait = self.plan.flow && self.refused_busy && self.busy_wait(s);
            // A step on the current file when the pass has none (its open
            // or create was skipped) tried nothing: no back-off for it.
            let orphan = self.plan.flow
                && on_current(a.op)
                && !matches!(a.op, Op::Create | Op::Open)
                && self.slots[s as usize].cur_fd < 0;
            if !orphan && !self.refused_busy {
                self.last_miss = act;
            }
            self.skipped_op(wait, !orphan);
            if !wait {
                self.step_done(s);
            }
        }
    }

    /// A flow step whose files are all held by other threads waits for
    /// them (the slot tries the same step again after the back-off) so
    /// the flow's operations keep their proportions; after
    /// `BUSY_WAIT_NS` it gives way and is skipped (two slots each holding
    /// a current file the other's step needs cannot wait for ever).
    #[cold]
    fn busy_wait(&mut self, s: u32) -> bool {
        let sl = &mut self.slots[s as usize];
        if sl.busy_since == 0 {
            sl.busy_since = self.now.max(1);
        }
        let waiting = self.now.saturating_sub(sl.busy_since) < BUSY_WAIT_NS;
        if !waiting {
            sl.busy_since = 0;
        }
        waiting
    }

    /// No file was in the state the operation needs: it is not an
    /// operation (its `--ops` share goes back), and a long run of them
    /// (every operation starved: a delete-only mix with every file gone;
    /// 10,000 in a row or a second of nothing else) stops the workload
    /// rather than spin. Files in the right state held by other threads
    /// are a wait, not starvation: they reset the run.
    /// A flow step that `wait`s for busy files is tried again, not
    /// skipped; the thread sleeps before its next start when `backoff`.
    #[cold]
    fn skipped_op(&mut self, wait: bool, backoff: bool) {
        self.skipped += u64::from(!wait);
        self.skip_streak += 1;
        if backoff {
            self.backoff_ns = (self.backoff_ns * 2).clamp(20_000, 1_000_000);
        }
        if self.measuring {
            if let Some(b) = self.sh.ops_left.as_ref() {
                b.fetch_add(1, Relaxed);
            }
        }
        if self.refused_busy {
            // Files in the state it needs exist, held by other threads: a
            // wait as long as their operations (a pending mark bounds it),
            // not starvation; the back-off goes on.
            self.last_ok = self.now;
            self.skip_streak = 1;
            return;
        }
        let idle_ns = self.now.saturating_sub(self.last_ok);
        let hopeless =
            self.skip_streak >= 16 && self.skip_streak.is_power_of_two() && self.hopeless_miss();
        if hopeless
            || self.skip_streak >= MAX_SKIPS
            || (self.skip_streak >= 64 && idle_ns >= STARVED_NS)
        {
            self.starved = true;
            self.stopping = true;
            self.port.stop.store(true, Relaxed);
        }
    }

    /// The last start that found no file can never find one (`starve.rs`):
    /// then it is the reason the thread stops.
    #[cold]
    fn hopeless_miss(&mut self) -> bool {
        let Some(a) = self.plan.acts.get(self.last_miss as usize) else {
            return false;
        };
        let (op, set) = (a.op, a.set);
        let makers = self.sh.makers.get(set as usize).map_or(&[][..], |m| &m[..]);
        if !super::starve::hopeless(op, &self.sh.sets[set as usize].table, makers) {
            return false;
        }
        self.hopeless = Some((op, set));
        true
    }

    /// The mix's weighted draw, or the flow's step at the slot's position.
    #[inline(always)]
    fn next_act(&mut self, s: u32) -> u32 {
        if self.plan.flow {
            return self.slots[s as usize].pos;
        }
        let r = self.rng.u32(0..self.plan.total_w);
        self.plan.cum.partition_point(|&c| c <= r) as u32
    }

    /// A flow step on the current file (or that makes one).
    fn begin_current(&mut self, s: u32) -> bool {
        let sl = &mut self.slots[s as usize];
        match sl.op {
            Op::Create | Op::Open => {
                self.drop_current(s);
                self.begin_own(s)
            }
            _ if sl.cur_fd < 0 => false,
            Op::Close => {
                sl.set = sl.cur_set;
                sl.file = sl.cur_file;
                sl.fd = sl.cur_fd;
                sl.ph = Ph::CloseCur;
                true
            }
            _ => {
                sl.set = sl.cur_set;
                sl.file = sl.cur_file;
                sl.fd = sl.cur_fd;
                sl.open_flags = sl.cur_flags;
                self.begin_body(s);
                true
            }
        }
    }

    /// Choose and claim the operation's file, set its path and first step.
    fn begin_own(&mut self, s: u32) -> bool {
        let op = self.slots[s as usize].op;
        let Some(need) = Need::of(op) else {
            return self.begin_readdir(s);
        };
        let Some((mask, want)) = need.bits() else {
            return self.begin_rename(s);
        };
        let set = self.slots[s as usize].set as usize;
        let t = &self.sh.sets[set].table;
        let claim = self.plan.acts[self.slots[s as usize].act as usize].claim;
        let got = match claim {
            Claim::Excl => self.pickers[set].claim(t, mask, want, &mut self.rng),
            kind => self.pickers[set].share(t, kind, &mut self.rng),
        };
        let Some(file) = got else {
            self.refused_busy = self.pickers[set].busy();
            return false;
        };
        let bits = t.bits(file);
        let sl = &mut self.slots[s as usize];
        sl.file = file;
        sl.claimed = 1;
        sl.claim = claim;
        sl.bits = bits;
        self.sh.sets[set].layout.file_path_into(file, &mut sl.path);
        if matches!(op, Op::Mkdir | Op::Rmdir) {
            sl.path.extend_from_slice(b".d");
        }
        sl.path.push(0);
        self.slots[s as usize].ph = match op {
            Op::Stat | Op::Access | Op::Delete | Op::Mkdir | Op::Rmdir | Op::Rename => Ph::One,
            _ => Ph::Open,
        };
        self.slots[s as usize].open_flags = self.open_flags(s);
        true
    }

    /// Rename: a file at its layout name (moved to `f17.r`) or at its
    /// side name (moved back), whichever state comes first from a random
    /// start; both names are in the same leaf directory.
    fn begin_rename(&mut self, s: u32) -> bool {
        let set = self.slots[s as usize].set as usize;
        let t = &self.sh.sets[set].table;
        let first = if self.rng.bool() { EXISTS } else { MOVED };
        let p = &mut self.pickers[set];
        let got = p.claim(t, EXISTS | MOVED, first, &mut self.rng);
        let got =
            got.or_else(|| p.claim(t, EXISTS | MOVED, first ^ (EXISTS | MOVED), &mut self.rng));
        let Some(file) = got else {
            self.refused_busy = self.pickers[set].busy();
            return false;
        };
        let bits = t.bits(file);
        let sl = &mut self.slots[s as usize];
        (sl.file, sl.file2, sl.claimed, sl.claim, sl.bits) = (file, file, 1, Claim::Excl, bits);
        let layout = &self.sh.sets[set].layout;
        layout.file_path_into(file, &mut sl.path);
        layout.file_path_into(file, &mut sl.path2);
        let side = if bits & MOVED != 0 {
            &mut sl.path
        } else {
            &mut sl.path2
        };
        side.extend_from_slice(b".r");
        sl.path.push(0);
        sl.path2.push(0);
        sl.ph = Ph::One;
        true
    }

    fn begin_readdir(&mut self, s: u32) -> bool {
        let set = self.slots[s as usize].set as usize;
        let n = self.sh.sets[set].table.files();
        let i = self.rng.u64(0..n.max(1));
        let sl = &mut self.slots[s as usize];
        self.sh.sets[set].layout.leaf_dir_into(i, &mut sl.path);
        if sl.path.is_empty() {
            sl.path.push(b'.');
        }
        sl.path.push(0);
        sl.dir_open = true;
        sl.ph = Ph::Open;
        sl.open_flags = libc::O_RDONLY | libc::O_DIRECTORY;
        true
    }

    /// The flags of the operation's open.
    fn open_flags(&self, s: u32) -> i32 {
        let sl = &self.slots[s as usize];
        let a = &self.plan.acts[sl.act as usize];
        let data = self.plan.data_flags | a.flags;
        match sl.op {
            Op::Create if self.plan.flow => libc::O_CREAT | libc::O_EXCL | libc::O_RDWR | data,
            Op::Create => libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | data,
            Op::Open if self.plan.flow && a.open_write => libc::O_RDWR | data,
            Op::Read | Op::Open => {
                libc::O_RDONLY | self.plan.direct_flag | (a.flags & libc::O_DIRECT)
            }
            Op::Write | Op::Rewrite | Op::Append | Op::Fsync | Op::Fdatasync => {
                libc::O_WRONLY | data
            }
            _ => libc::O_RDONLY,
        }
    }

    /// After the open (or at once on the current file): the operation's
    /// own request, or the end.
    fn begin_body(&mut self, s: u32) {
        let sl = &mut self.slots[s as usize];
        sl.ph = match sl.op {
            Op::Read | Op::Write | Op::Rewrite | Op::Append => Ph::Xfer,
            Op::Create if self.plan.acts[sl.act as usize].whole => Ph::Xfer,
            Op::Fsync | Op::Fdatasync | Op::Getattr | Op::Setattr => Ph::One,
            Op::Readdir => Ph::Dents,
            _ => Ph::Close,
        };
        if sl.ph == Ph::Xfer {
            self.plan_xfer(s);
        }
    }

    /// Where the transfer goes: `off..end` of the file.
    fn plan_xfer(&mut self, s: u32) {
        let sl = &self.slots[s as usize];
        let a = self.plan.acts[sl.act as usize];
        let set = &self.sh.sets[sl.set as usize];
        let (size, nominal) = (set.table.size(sl.file), set.layout.size(sl.file));
        let x = a.xfer as u64;
        let (off, len) = match sl.op {
            // Appends reserve their range (other threads may share the file).
            Op::Append => {
                let len = if a.random { self.rng.u64(1..=x) } else { x };
                (set.table.reserve(sl.file, len), len)
            }
            Op::Read | Op::Rewrite if a.whole => (0, size),
            Op::Write | Op::Create if a.whole => (0, nominal),
            Op::Create => (0, 0),
            // One write: anywhere up to the file's end (it may extend the
            // file, never leave a hole of zeros before what it writes).
            Op::Write => {
                let off = self.xfer_offset(s, size, x, a.random, true);
                (off, x)
            }
            _ => {
                let off = self.xfer_offset(s, size, x, a.random, false);
                (off, x.min(size.saturating_sub(off)))
            }
        };
        let sl = &mut self.slots[s as usize];
        sl.off = off;
        sl.end = off + len;
    }

    /// An `x`-aligned offset in the file's `size` bytes (with `at_end`,
    /// also the aligned offset that starts at or before its end): random,
    /// or where this slot's last transfer on the file ended (from 0 past
    /// the end).
    fn xfer_offset(&mut self, s: u32, size: u64, x: u64, random: bool, at_end: bool) -> u64 {
        let x = x.max(1);
        let blocks = if at_end { size / x + 1 } else { size / x };
        let sl = &self.slots[s as usize];
        if random {
            return self.rng.u64(0..blocks.max(1)) * x;
        }
        let limit = if at_end { size } else { size.saturating_sub(x) };
        if sl.last_file == sl.file && sl.last_pos <= limit && sl.last_pos < blocks * x {
            sl.last_pos
        } else {
            0
        }
    }

    /// Issue the request of the slot's phase (or end the operation when
    /// the phase needs none).
    #[inline]
    pub(super) fn issue(&mut self, s: u32) {
        let req = match self.slots[s as usize].ph {
            Ph::Open => self.req_open(s),
            Ph::Xfer => match self.req_xfer(s) {
                Some(r) => r,
                None => return self.body_done(s),
            },
            Ph::One => match self.req_one(s) {
                Ok(r) => r,
                Err(errno) => return self.step_failed(s, Ph::One, errno),
            },
            Ph::Dents => {
                let sl = &self.slots[s as usize];
                Req::Getdents {
                    fd: sl.fd,
                    buf: sl.buf,
                    len: self.buf_len as u32,
                }
            }
            Ph::Close => {
                let sl = &self.slots[s as usize];
                if !sl.own || sl.fd < 0 {
                    return self.end_op(s);
                }
                Req::Close { fd: sl.fd }
            }
            Ph::CloseCur => Req::Close {
                fd: self.slots[s as usize].fd,
            },
            Ph::Idle => return,
        };
        self.push(s, req);
    }

    fn req_open(&self, s: u32) -> Req {
        let sl = &self.slots[s as usize];
        // O_NOFOLLOW whatever the backend: the last component is never a
        // symbolic link followed (the synchronous backend also refuses one
        // anywhere on the path, through openat2).
        Req::Open {
            dir: self.sh.sets[sl.set as usize].dir_fd(),
            path: sl.path.as_ptr() as *const libc::c_char,
            flags: sl.open_flags | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            mode: 0o644,
        }
    }

    /// The next piece of the transfer; `None` when it is complete.
    #[inline]
    fn req_xfer(&mut self, s: u32) -> Option<Req> {
        let sl = &mut self.slots[s as usize];
        if sl.off >= sl.end {
            return None;
        }
        let mut len = (sl.end - sl.off).min(self.plan.acts[sl.act as usize].xfer as u64);
        let direct = sl.open_flags & libc::O_DIRECT != 0;
        if direct && sl.op == Op::Read {
            // Reading past the end is harmless: the read is short.
            len = len.div_ceil(4096) * 4096;
        }
        sl.len = len.min(self.buf_len as u64) as u32;
        if direct && sl.op != Op::Read && unaligned(sl) {
            // O_DIRECT needs aligned pieces; rounding a write up would
            // grow the file. This piece (a file's tail) goes through the
            // page cache: O_DIRECT off on the descriptor until it is done.
            set_direct(sl.fd, false);
        }
        if sl.op == Op::Read {
            return Some(Req::Read {
                fd: sl.fd,
                buf: sl.buf,
                len: sl.len,
                off: sl.off,
            });
        }
        // SAFETY: the slot's buffer holds buf_len bytes and no request of
        // this slot is in flight.
        let buf = unsafe { std::slice::from_raw_parts_mut(sl.buf, sl.len as usize) };
        self.sh.verify.stamp(sl.set, sl.file, sl.off, buf);
        Some(Req::Write {
            fd: sl.fd,
            buf: sl.buf,
            len: sl.len,
            off: sl.off,
        })
    }

    /// The request of a one-request step; `Err(errno)` when the file's
    /// leaf directory cannot be reached safely.
    fn req_one(&mut self, s: u32) -> Result<Req, i32> {
        let sl = &mut self.slots[s as usize];
        Ok(match sl.op {
            Op::Fsync | Op::Fdatasync => Req::Fsync {
                fd: sl.fd,
                datasync: sl.op == Op::Fdatasync,
            },
            Op::Getattr => Req::Statx {
                dir: sl.fd,
                path: c"".as_ptr(),
                flags: libc::AT_EMPTY_PATH,
                out: &mut *sl.stx,
            },
            Op::Setattr => Req::Setattr {
                fd: sl.fd,
                mode: 0o644,
            },
            _ => return self.req_named(s),
        })
    }

    /// A request on the file's name in its leaf directory (rename: also
    /// the target's).
    fn req_named(&mut self, s: u32) -> Result<Req, i32> {
        let (dir, path) = self.leaf(s, false)?;
        if self.slots[s as usize].op == Op::Rename {
            let (to_dir, to) = self.leaf(s, true)?;
            return Ok(Req::Rename {
                dir,
                from: path,
                to_dir,
                to,
            });
        }
        let sl = &mut self.slots[s as usize];
        Ok(match sl.op {
            Op::Stat => Req::Statx {
                dir,
                path,
                flags: libc::AT_SYMLINK_NOFOLLOW,
                out: &mut *sl.stx,
            },
            Op::Access => Req::Access {
                dir,
                path,
                mode: libc::R_OK,
            },
            Op::Mkdir => Req::Mkdir {
                dir,
                path,
                mode: 0o755,
            },
            op => Req::Unlink {
                dir,
                path,
                rmdir: op == Op::Rmdir,
            },
        })
    }

    /// The slot's file's leaf directory (`second`: rename's target's) as
    /// a descriptor (the anchor's when the files sit in it) and the name
    /// in it; the descriptor is held until the operation's end.
    #[inline]
    fn leaf(&mut self, s: u32, second: bool) -> Result<(i32, *const libc::c_char), i32> {
        let sl = &mut self.slots[s as usize];
        let set = &self.sh.sets[sl.set as usize];
        let (file, path) = if second {
            (sl.file2, &mut sl.path2)
        } else {
            (sl.file, &mut sl.path)
        };
        let Some(cut) = path.iter().rposition(|&b| b == b'/') else {
            return Ok((set.dir_fd(), path.as_ptr().cast()));
        };
        let key = DirCache::key(sl.set, set.layout.leaf_of(file));
        let (ent, fd) = self.dirs.acquire(key, set.dir_fd(), path, cut);
        if fd < 0 {
            return Err(-fd);
        }
        let name = path[cut + 1..].as_ptr().cast();
        if second {
            sl.dir2 = (ent, fd);
        } else {
            sl.dir = (ent, fd);
        }
        Ok((fd, name))
    }

    /// The result `res` of slot `s`'s request.
    #[inline]
    pub(super) fn advance(&mut self, s: u32, res: i32) {
        let ph = self.slots[s as usize].ph;
        let sl = &self.slots[s as usize];
        if ph == Ph::Xfer
            && sl.open_flags & libc::O_DIRECT != 0
            && sl.op != Op::Read
            && unaligned(sl)
        {
            set_direct(sl.fd, true);
        }
        if res < 0 {
            return self.step_failed(s, ph, -res);
        }
        match ph {
            Ph::Open => self.opened(s, res),
            Ph::Xfer => return self.moved(s, res as u32),
            Ph::One => self.one_done(s),
            Ph::Dents if res > 0 => {}
            Ph::Dents => self.slots[s as usize].ph = Ph::Close,
            Ph::Close | Ph::CloseCur => return self.closed(s),
            Ph::Idle => return,
        }
        self.issue(s);
    }

    fn opened(&mut self, s: u32, fd: i32) {
        let flow = self.plan.flow;
        let sl = &mut self.slots[s as usize];
        sl.fd = fd;
        if sl.dir_open {
            sl.own = true;
            return self.begin_body(s);
        }
        let writes = sl.open_flags & libc::O_ACCMODE != libc::O_RDONLY;
        if self.measuring {
            let c = &mut self.counters;
            if writes {
                c.opens_write += 1;
            } else {
                c.opens_read += 1;
            }
            c.files_created += (sl.op == Op::Create) as u64;
        }
        if sl.op == Op::Create {
            sl.bits |= EXISTS;
            self.sh.sets[sl.set as usize].table.set_size(sl.file, 0);
            self.sh.verify.created(sl.set, sl.file);
        }
        if flow && matches!(sl.op, Op::Create | Op::Open) {
            // The file stays claimed while it is the current file.
            sl.cur_set = sl.set;
            sl.cur_file = sl.file;
            sl.cur_fd = fd;
            sl.cur_write = writes;
            sl.cur_flags = sl.open_flags;
            sl.cur_claim = sl.claim;
            if sl.claim == Claim::Excl {
                self.sh.sets[sl.set as usize]
                    .table
                    .set_held(sl.file, sl.bits);
            }
        } else {
            sl.own = true;
        }
        self.begin_body(s);
    }

    /// A transfer piece of `n` bytes completed.
    #[inline]
    fn moved(&mut self, s: u32, n: u32) {
        if self.slots[s as usize].op == Op::Read {
            self.check_read(s, n);
        }
        if n == 0 {
            if self.slots[s as usize].op == Op::Read {
                return self.read_at_end(s);
            }
            // A write of nothing: no reason given.
            return self.step_failed(s, Ph::Xfer, 0);
        }
        // A short write goes on from where it stopped: the next piece
        // writes the rest, or gets the reason (ENOSPC) as its error.
        let sl = &mut self.slots[s as usize];
        let set = &self.sh.sets[sl.set as usize];
        sl.off += n as u64;
        sl.bytes += n as u64;
        if sl.op != Op::Read && sl.off > set.table.size(sl.file) {
            // Sharers may write at the end together: the size only grows.
            set.table.grow(sl.file, sl.off);
        }
        if sl.op == Op::Read && sl.off >= set.table.size(sl.file) {
            sl.end = sl.off;
        }
        self.issue(s);
    }

    /// A read piece returned nothing before the end iolab knows: the file
    /// is shorter (someone else truncated it). Its size is learned
    /// (fstat) so later transfers stay within it; the read that lowers
    /// the known size counts the event, once (a short transfer with the
    /// path, offset and length), and reads that were in flight meanwhile
    /// end at the file's end like any read of the last bytes.
    #[cold]
    fn read_at_end(&mut self, s: u32) {
        let sl = &mut self.slots[s as usize];
        let t = &self.sh.sets[sl.set as usize].table;
        // SAFETY: stat is plain data; fstat writes it for the slot's open
        // descriptor (nothing is in flight on it).
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        let real = match unsafe { libc::fstat(sl.fd, &mut st) } {
            0 => (st.st_size.max(0) as u64).min(sl.off),
            _ => sl.off,
        };
        if t.shrink(sl.file, real) {
            return self.step_failed(s, Ph::Xfer, 0);
        }
        sl.end = sl.off;
        self.issue(s);
    }

    /// `--verify`: check the `n` bytes a read brought (free when off).
    #[inline(always)]
    fn check_read(&mut self, s: u32, n: u32) {
        let sl = &self.slots[s as usize];
        let size = self.sh.sets[sl.set as usize].table.size(sl.file);
        // SAFETY: the kernel filled n bytes of the slot's buffer.
        let data = unsafe { std::slice::from_raw_parts(sl.buf, n as usize) };
        let asked = sl.len as usize;
        if let super::verify::ReadCheck::Finding(_) =
            self.sh
                .verify
                .check_piece((sl.set, sl.file), sl.off, asked, data, size)
        {
            self.found();
        }
    }

    /// A data validation finding: stop at `--max-errors` of them.
    #[cold]
    fn found(&mut self) {
        let max = self.plan.max_errors;
        if max > 0 && self.sh.verify.findings() >= max {
            self.stopping = true;
            self.port.stop.store(true, Relaxed);
        }
    }

    /// The transfer is complete: close what the operation opened, or end.
    fn body_done(&mut self, s: u32) {
        let sl = &mut self.slots[s as usize];
        sl.last_file = sl.file;
        sl.last_pos = sl.off;
        if sl.own {
            sl.ph = Ph::Close;
            return self.issue(s);
        }
        self.end_op(s);
    }

    fn one_done(&mut self, s: u32) {
        let sl = &mut self.slots[s as usize];
        let c = &mut self.counters;
        let m = self.measuring as u64;
        match sl.op {
            Op::Delete => {
                sl.bits &= !EXISTS;
                c.files_deleted += m;
            }
            Op::Mkdir => {
                sl.bits |= DIR;
                c.dirs_created += m;
            }
            Op::Rmdir => {
                sl.bits &= !DIR;
                c.dirs_deleted += m;
            }
            Op::Rename => self.renamed(s),
            _ => {}
        }
        let sl = &mut self.slots[s as usize];
        sl.ph = if sl.own { Ph::Close } else { Ph::Idle };
        if sl.ph == Ph::Idle {
            self.end_op(s);
        }
    }

    /// The file moved between its layout name and its side name.
    fn renamed(&mut self, s: u32) {
        self.slots[s as usize].bits ^= EXISTS | MOVED;
    }

    fn closed(&mut self, s: u32) {
        let sl = &mut self.slots[s as usize];
        if self.measuring && !sl.dir_open {
            self.counters.closes += 1;
        }
        if sl.ph == Ph::CloseCur {
            self.take_current(s);
        }
        let sl = &mut self.slots[s as usize];
        sl.fd = -1;
        sl.own = false;
        self.end_op(s);
    }

    /// The current file was closed: its claim becomes the operation's,
    /// released at its end.
    fn take_current(&mut self, s: u32) {
        let sl = &mut self.slots[s as usize];
        sl.cur_fd = -1;
        sl.claimed = 1;
        sl.claim = sl.cur_claim;
        sl.set = sl.cur_set;
        sl.file = sl.cur_file;
        sl.bits = self.sh.sets[sl.set as usize].table.bits(sl.file);
    }

    /// A step failed: count it, fix the file's state on ENOENT/EEXIST,
    /// close what the operation opened, end it.
    #[cold]
    fn step_failed(&mut self, s: u32, ph: Ph, errno: i32) {
        if self.slots[s as usize].failed.is_none() {
            self.failed(s, ph, errno);
        }
        let sl = &mut self.slots[s as usize];
        sl.failed = Some(errno);
        match (errno, sl.op) {
            (libc::ENOENT, Op::Mkdir | Op::Rmdir) => sl.bits &= !DIR,
            (libc::ENOENT, Op::Rename) => sl.bits &= !(EXISTS | MOVED),
            (libc::ENOENT, _) if ph != Ph::Xfer => sl.bits &= !EXISTS,
            (libc::EEXIST, Op::Create) => sl.bits |= EXISTS,
            (libc::EEXIST, Op::Mkdir) => sl.bits |= DIR,
            _ => {}
        }
        if ph == Ph::CloseCur {
            self.take_current(s);
        }
        let sl = &mut self.slots[s as usize];
        if sl.own && !matches!(ph, Ph::Close | Ph::Open) {
            sl.ph = Ph::Close;
            return self.issue(s);
        }
        sl.own = false;
        self.end_op(s);
    }

    /// The operation is over: release its claims, count it, move the
    /// flow on.
    #[inline]
    fn end_op(&mut self, s: u32) {
        self.release(s);
        self.record(s);
        self.step_done(s);
    }

    /// Release the files the operation claimed (not the file a flow's
    /// open or create made current: that claim stays until its close; a
    /// stat of the same file under its own shared claim drops that one).
    fn release(&mut self, s: u32) {
        let sl = &mut self.slots[s as usize];
        let t = &self.sh.sets[sl.set as usize].table;
        let current = matches!(sl.op, Op::Open | Op::Create)
            && sl.cur_fd >= 0
            && sl.cur_set == sl.set
            && sl.cur_file == sl.file;
        if sl.claimed >= 1 && !current {
            if sl.claim != Claim::Excl {
                if sl.bits & EXISTS == 0 {
                    t.gone(sl.file);
                }
                t.unshare(sl.file);
            } else {
                t.release(sl.file, sl.bits);
            }
        }
        if sl.claimed == 2 {
            t.release(sl.file2, t.bits(sl.file2));
        }
        sl.claimed = 0;
        if sl.dir.0 != NO_ENT || sl.dir2.0 != NO_ENT {
            self.release_dirs(s);
        }
    }

    /// Hand back the leaf directories the operation held (a file found
    /// gone through one: it is resolved again next time, it may have been
    /// replaced).
    #[cold]
    fn release_dirs(&mut self, s: u32) {
        let sl = &mut self.slots[s as usize];
        let stale = sl.failed == Some(libc::ENOENT);
        for d in [&mut sl.dir, &mut sl.dir2] {
            self.dirs.release(d.0, d.1, stale);
            *d = (NO_ENT, -1);
        }
    }

    /// A flow moves to its next step (think time after the last).
    #[inline]
    fn step_done(&mut self, s: u32) {
        if !self.plan.flow {
            return;
        }
        let n = self.plan.acts.len() as u32;
        let sl = &mut self.slots[s as usize];
        sl.iter += 1;
        if sl.iter < self.plan.acts[sl.pos as usize].iters {
            return;
        }
        sl.iter = 0;
        sl.pos += 1;
        if sl.pos == n {
            sl.pos = 0;
            sl.wait_until = self.now + self.plan.think_ns;
        }
    }

    /// Close the slot's current file (at the end, or before a flow's
    /// create/open replaces it) without counting an operation.
    #[cold]
    pub(super) fn drop_current(&mut self, s: u32) {
        let sl = &mut self.slots[s as usize];
        if sl.cur_fd < 0 {
            return;
        }
        // SAFETY: the descriptor is this slot's and nothing is in flight on it.
        if unsafe { libc::close(sl.cur_fd) } == 0 && self.measuring {
            self.counters.closes += 1;
        }
        sl.cur_fd = -1;
        let t = &self.sh.sets[sl.cur_set as usize].table;
        if sl.cur_claim != Claim::Excl {
            t.unshare(sl.cur_file);
        } else {
            t.release(sl.cur_file, t.bits(sl.cur_file));
        }
    }
}

/// The flow steps that act on (or make) the slot's current file: the
/// spec's list of steps that need one (its flow checks use the same),
/// and `create` and `open`, which make it.
pub(super) fn on_current(op: Op) -> bool {
    matches!(op, Op::Create | Op::Open) || iolab_spec::fs_parse::needs_current(op)
}

/// The slot's transfer piece (`off`, `len`) is not 4096-aligned: under
/// O_DIRECT a write of it goes through the page cache.
#[inline]
fn unaligned(sl: &Slot) -> bool {
    !(sl.off | sl.len as u64).is_multiple_of(4096)
}

/// Turn O_DIRECT on or off on `fd` (fcntl F_SETFL: Linux lets O_DIRECT
/// change on an open descriptor). Two system calls, only for the
/// unaligned tail of a write under `--direct`; a failure leaves the flag
/// as it was (the write then fails with EINVAL and is counted).
fn set_direct(fd: i32, on: bool) {
    // SAFETY: plain fcntl calls on a descriptor; nothing is dereferenced.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if fl >= 0 {
            let want = if on {
                fl | libc::O_DIRECT
            } else {
                fl & !libc::O_DIRECT
            };
            libc::fcntl(fd, libc::F_SETFL, want);
        }
    }
}
