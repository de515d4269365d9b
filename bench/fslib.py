"""fslib: what the file-system benchmarks (bench/vs-filebench/run,
bench/fs-meta/run, bench/fs-scale/run) share: a scratch ext4 file system
on a loop device (over a file on a private tmpfs, or over a file on disk),
torn down at exit even on failure; running a tool while sampling the CPU
of its whole process tree; the environment and number formatting.

Standard library only (Python >= 3.11).  Needs root (mount, losetup).

Data safety: everything this module writes is inside what it made itself:
a tmpfs it mounts on a directory it creates under /tmp, an image file it
creates in a directory it creates (under /tmp's private tmpfs or under the
--disk-dir the caller gives, /var/tmp by default, never a block device),
the loop device `losetup --find` attaches to that image, and the ext4 file
system it makes on that loop device.  Cleanup (unmount, detach, remove the
image and the directories) runs from an atexit hook and on
SIGINT/SIGTERM/SIGHUP, in the reverse order of creation, and each step is
tried even when an earlier one failed.
"""

from __future__ import annotations

import atexit
import datetime as _dt
import json
import os
import platform
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CLK_TCK = os.sysconf("SC_CLK_TCK")
MIB = 1024 * 1024
SAMPLE_S = 0.2


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def sh(cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, text=True, capture_output=True, **kw)


def need_root():
    if os.geteuid() != 0:
        raise SystemExit("needs root (mount, losetup, mkfs.ext4): run it with sudo")


def need_tools(tools):
    """Exit with one line naming every missing tool."""
    missing = [t for t in tools if shutil.which(t) is None and not os.access(t, os.X_OK)]
    if missing:
        raise SystemExit("missing: " + ", ".join(missing)
                         + " (apt-get install e2fsprogs util-linux time; see --help for the peers)")


# --------------------------------------------------------------------------
# cleanup

class Cleanup:
    """A stack of undo actions, run in reverse at exit or on a signal."""

    def __init__(self):
        self.stack = []
        self.children = set()
        atexit.register(self.run)
        for s in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, self._on_signal)

    def _on_signal(self, signum, frame):
        for p in list(self.children):
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except OSError:
                pass
        raise KeyboardInterrupt

    def push(self, what, fn):
        self.stack.append((what, fn))

    def pop(self, what):
        """Run and forget the most recent action named `what`."""
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == what:
                _, fn = self.stack.pop(i)
                self._do(what, fn)
                return

    def _do(self, what, fn):
        try:
            fn()
        except Exception as e:  # keep going: later steps may still work
            log(f"  cleanup {what}: {e}")

    def run(self):
        while self.stack:
            what, fn = self.stack.pop()
            self._do(what, fn)


CLEANUP = Cleanup()


def umount(path):
    for _ in range(20):
        r = sh(["umount", str(path)], check=False)
        if r.returncode == 0 or "not mounted" in r.stderr:
            return
        time.sleep(0.5)
    log(f"  umount {path} still busy: lazy unmount")
    sh(["umount", "-l", str(path)], check=False)


def rmtree_mine(path):
    """Remove a directory this module created (never follows a mount)."""
    p = Path(path)
    if p.exists() and not os.path.ismount(p):
        shutil.rmtree(p, ignore_errors=True)


# --------------------------------------------------------------------------
# the scratch file system

class Ext4Loop:
    """ext4 on a loop device over an image file.

    kind "tmpfs": the image lives on a private tmpfs (memory: stable
    figures); kind "disk": in a new directory under `disk_dir` (a
    file-backed loop device on the machine's disk), preallocated with
    fallocate.  The loop device uses direct I/O on its backing file where
    the kernel accepts it (`losetup --direct-io=on`), so the image is not
    cached twice.  `fresh()` makes a new file system (mkfs.ext4 with its
    inode tables and journal written up front, no lazy init running in the
    background during a measurement) and mounts it; call it before every
    run so that each tool starts from the same empty file system."""

    def __init__(self, kind, size_mib, disk_dir="/var/tmp", mkfs_opts=()):
        self.kind, self.size_mib = kind, size_mib
        self.mkfs_opts = list(mkfs_opts)
        self.loop = None
        self.dio = None
        base = Path(tempfile.mkdtemp(prefix=f"iolab-fsbench-{kind}.", dir="/tmp"))
        CLEANUP.push("rmdir " + str(base), lambda: rmtree_mine(base))
        self.base = base
        if kind == "tmpfs":
            store = base / "tmpfs"
            store.mkdir()
            sh(["mount", "-t", "tmpfs", "-o", f"size={size_mib + 16}m", "iolab-fsbench", str(store)])
            CLEANUP.push("umount tmpfs", lambda: umount(store))
        elif kind == "disk":
            Path(disk_dir).mkdir(parents=True, exist_ok=True)
            store = Path(tempfile.mkdtemp(prefix="iolab-fsbench-img.", dir=disk_dir))
            CLEANUP.push("rm image dir", lambda: rmtree_mine(store))
        else:
            raise ValueError(kind)
        self.image = store / "ext4.img"
        if kind == "disk":
            sh(["fallocate", "-l", f"{size_mib}M", str(self.image)])
        else:
            with open(self.image, "wb") as f:
                f.truncate(size_mib * MIB)
        r = sh(["losetup", "--find", "--show", "--direct-io=on", str(self.image)], check=False)
        if r.returncode != 0 or not r.stdout.strip():
            r = sh(["losetup", "--find", "--show", str(self.image)])
        self.loop = r.stdout.strip()
        loop = self.loop
        CLEANUP.push("losetup -d", lambda: sh(["losetup", "-d", loop], check=False))
        try:
            self.dio = Path(f"/sys/block/{os.path.basename(loop)}/loop/dio").read_text().strip() == "1"
        except OSError:
            self.dio = None
        self.mnt = base / "mnt"
        self.mnt.mkdir()
        self.mounted = False
        log(f"  {kind}: ext4 on {loop} over {self.image} ({size_mib} MiB, backing direct I/O "
            f"{'on' if self.dio else 'off'})")

    def describe(self):
        where = ("a file on a private tmpfs" if self.kind == "tmpfs"
                 else f"a fallocated file in {self.image.parent.parent}")
        return (f"ext4 ({' '.join(['mkfs.ext4'] + self.mkfs_opts + ['-E', 'lazy_itable_init=0,lazy_journal_init=0'])}, "
                f"mounted with defaults) on a loop device over {where}, {self.size_mib} MiB, "
                f"losetup --direct-io={'on' if self.dio else 'off'}")

    def fresh(self):
        """Unmount (if mounted), mkfs, mount; returns the mount point."""
        self.unmount()
        sh(["mkfs.ext4", "-q", "-F", *self.mkfs_opts, "-E", "lazy_itable_init=0,lazy_journal_init=0",
            self.loop])
        sh(["mount", self.loop, str(self.mnt)])
        self.mounted = True
        mnt = self.mnt
        CLEANUP.push("umount ext4", lambda: umount(mnt))
        return self.mnt

    def unmount(self):
        if self.mounted:
            CLEANUP.pop("umount ext4")
            self.mounted = False

    def free_mib(self):
        st = os.statvfs(self.mnt)
        return st.f_bavail * st.f_frsize / MIB


def mem_available_mib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable"):
                return int(line.split()[1]) / 1024
    return float("nan")


# --------------------------------------------------------------------------
# running a tool

def scan_procs():
    """pid -> (ppid, utime+stime+cutime+cstime ticks, rss pages)."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                s = f.read()
        except OSError:
            continue
        rest = s[s.rfind(")") + 2:].split()
        try:
            out[int(d)] = (int(rest[1]), sum(int(x) for x in rest[11:15]), int(rest[21]))
        except (IndexError, ValueError):
            continue
    return out


def tree_of(procs, root):
    kids = {}
    for pid, v in procs.items():
        kids.setdefault(v[0], []).append(pid)
    seen, stack = set(), [root]
    while stack:
        p = stack.pop()
        if p not in seen:
            seen.add(p)
            stack.extend(kids.get(p, []))
    return seen


def busy_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (v + [0] * 8)[:8]
    return user + nice + system + irq + softirq + steal


def machine_busy(secs=1.0):
    """Busy CPU of the whole machine over `secs`, in CPUs."""
    b1, t1 = busy_ticks(), time.monotonic()
    time.sleep(secs)
    return (busy_ticks() - b1) / CLK_TCK / (time.monotonic() - t1)


def wait_quiet(max_busy, max_wait_s):
    """Wait (at most max_wait_s) until the machine's busy CPU stays under
    max_busy CPUs for a second; returns (busy, seconds waited).  The
    machine is shared: this keeps other people's bursts out of most runs,
    and the busy CPU beside each run's own says how far it did not."""
    t0 = time.monotonic()
    busy = machine_busy(1.0)
    said = False
    while busy > max_busy and time.monotonic() - t0 < max_wait_s:
        if not said:
            log(f"    (machine busy {busy:.2f} CPUs: waiting up to {max_wait_s:.0f} s for < {max_busy:.2f})")
            said = True
        busy = machine_busy(1.0)
    return busy, time.monotonic() - t0


class Sampler(threading.Thread):
    """Every SAMPLE_S: wall time, monotonic time, the CPU ticks of the
    tool's whole process tree (every thread of every process; a child that
    exited and was reaped is in its parent's cutime/cstime, so the sum
    never loses it), the tree's RSS and the machine's busy ticks."""

    def __init__(self, root):
        super().__init__(daemon=True)
        self.root = root
        self.samples = []
        self.stop_ev = threading.Event()
        self.page = os.sysconf("SC_PAGE_SIZE")

    def sample(self):
        procs = scan_procs()
        tree = tree_of(procs, self.root)
        ticks = sum(procs[p][1] for p in tree if p in procs)
        rss = sum(procs[p][2] for p in tree if p in procs) * self.page
        self.samples.append(dict(t=time.monotonic(), wall=time.time(), ticks=ticks, rss=rss,
                                 busy=busy_ticks()))

    def run(self):
        while not self.stop_ev.is_set():
            try:
                self.sample()
            except Exception as e:  # never let the sampler kill the run
                log(f"    sampler: {e}")
            self.stop_ev.wait(SAMPLE_S)

    def stop(self):
        self.stop_ev.set()
        self.join()


class Run:
    """The outcome of run_tool: rc, output lines [(monotonic t, text)],
    samples, rusage of the child (ru_utime/ru_stime/ru_maxrss include its
    reaped descendants), wall times."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def cpu_s(self):
        return self.rusage.ru_utime + self.rusage.ru_stime

    def maxrss_mib(self):
        return self.rusage.ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux

    def line_time(self, needle):
        for t, text in self.lines:
            if needle in text:
                return t
        return None

    def ticks_at(self, t):
        """Tree CPU ticks at monotonic time t, interpolated."""
        s = self.samples
        if not s:
            return float("nan")
        if t <= s[0]["t"]:
            return s[0]["ticks"]
        for a, b in zip(s, s[1:]):
            if a["t"] <= t <= b["t"]:
                f = (t - a["t"]) / max(1e-9, b["t"] - a["t"])
                return a["ticks"] + f * (b["ticks"] - a["ticks"])
        return s[-1]["ticks"]

    def busy_at(self, t):
        s = self.samples
        if not s:
            return float("nan")
        best = min(s, key=lambda x: abs(x["t"] - t))
        return best["busy"]

    def window_cpu(self, t0, t1, margin=0.5):
        """(tool-tree CPU as a fraction of one CPU, machine busy fraction
        of one CPU) over [t0 + margin, t1 - margin], from the samples."""
        a, b = t0 + margin, t1 - margin
        if b - a < 0.5:
            a, b = t0, t1
        if b <= a:
            return float("nan"), float("nan")
        tool = (self.ticks_at(b) - self.ticks_at(a)) / CLK_TCK / (b - a)
        busy = (self.busy_at(b) - self.busy_at(a)) / CLK_TCK / (b - a)
        return tool, busy

    def peak_rss_mib(self):
        return max((s["rss"] for s in self.samples), default=0) / MIB


def run_tool(cmd, log_path, timeout_s, cwd=None, env=None):
    """Run cmd in its own session with stdout+stderr read line by line
    (timestamped as they arrive) into log_path, sampled by a Sampler;
    returns a Run.  The child's rusage comes from wait4."""
    Path(log_path).with_suffix(".cmd").write_text(" ".join(map(str, cmd)) + "\n")
    lines = []
    t0, w0 = time.monotonic(), time.time()
    p = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True, cwd=cwd, env=env, text=True, bufsize=1)
    CLEANUP.children.add(p)
    smp = Sampler(p.pid)
    smp.start()

    def reader():
        with open(log_path, "w") as lf:
            for text in p.stdout:
                lines.append((time.monotonic(), text.rstrip("\n")))
                lf.write(text)
    rt = threading.Thread(target=reader, daemon=True)
    rt.start()
    timer = threading.Timer(timeout_s, lambda: _kill(p))
    timer.start()
    try:
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    finally:
        timer.cancel()
        smp.stop()
        rt.join(timeout=5)
        CLEANUP.children.discard(p)
    return Run(rc=p.returncode, lines=lines, samples=smp.samples, rusage=ru, t0=t0, wall0=w0,
               t1=time.monotonic(), cmd=cmd, log=log_path)


def _kill(p):
    log(f"    timed out: killing {p.args[0]}")
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass


# --------------------------------------------------------------------------
# iolab

def default_iolab():
    for prof in ("release", "debug"):
        p = REPO / "target" / prof / "iolab"
        if p.exists():
            return p
    return REPO / "target" / "release" / "iolab"


def private_copy(binary, raw_dir):
    """Run a private copy: other people may rebuild target/ meanwhile."""
    dst = Path(raw_dir) / Path(binary).name
    shutil.copy2(binary, dst)
    return dst


def iolab_doc(path):
    return json.loads(Path(path).read_text())


def iolab_operations(doc):
    """{op name: count} and measured seconds from an iolab result document
    (runs[0].workloads[0].operations, else runs[0].operations)."""
    run = doc["runs"][0]
    wl = (run.get("workloads") or [{}])[0]
    ops = wl.get("operations") or run.get("operations") or {}
    measured = wl.get("measured_s") or run.get("measured_s")
    return {k: v["ops"] for k, v in ops.items()}, float(measured), wl, run


def iolab_cpu_usec_per_op(wl, run):
    """iolab's own figure (process CPU over the measured time / operations),
    when the document has it: the file-system IO summary's (every
    operation) before summary.cpu's (whose operations leave out fsync)."""
    try:
        return float(wl["io_summary"]["cpu_us_per_op"])
    except (KeyError, TypeError, ValueError):
        pass
    for src in (wl, run):
        try:
            return float(src["summary"]["cpu"]["usec_per_io"])
        except (KeyError, TypeError, ValueError):
            continue
    return float("nan")


def iolab_window(run_, doc, measured_s):
    """The monotonic-clock window of iolab's measured time: it ends when
    iolab printed its last interval line (`   5.0s   ...`; Rust flushes
    stdout at each line, and the sampler timestamps lines as they arrive)
    and lasts measured_s.  Without interval lines (-q): when the run's
    `finished_at` says, else at the process's exit (which comes a little
    later: results are written first)."""
    last = None
    for t, text in run_.lines:
        if re.match(r"^\s+\d+(\.\d+)?s\s+[\d.]+\s", text):
            last = t
    if last is not None:
        return last - measured_s, last
    fin = doc["runs"][0].get("finished_at")
    if fin:
        end_wall = _dt.datetime.fromisoformat(fin.replace("Z", "+00:00")).timestamp()
        end = run_.t0 + (end_wall - run_.wall0)
        return end - measured_s, end
    return run_.t1 - measured_s, run_.t1


# --------------------------------------------------------------------------
# environment and formatting

def first_line(cmd):
    try:
        return sh(cmd, check=False).stdout.strip().splitlines()[0]
    except (OSError, IndexError):
        return "?"


def env_info(extra=None):
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    d = dict(date=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
             kernel=platform.release(), nproc=os.cpu_count(), cpu=cpu,
             memory=f"{os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE') / 2**30:.1f} GiB",
             git=first_line(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]),
             load=open("/proc/loadavg").read().split()[:3],
             command=" ".join(sys.argv))
    d.update(extra or {})
    return d


def env_markdown(env):
    keys = ["date", "nproc", "cpu", "memory", "kernel", "load", "git"] + \
        [k for k in env if k not in ("date", "nproc", "cpu", "memory", "kernel", "load", "git", "command")] + \
        ["command"]
    out = ["| | |", "|---|---|"]
    for k in keys:
        v = env[k]
        if isinstance(v, list):
            v = " ".join(map(str, v))
        out.append(f"| {k} | {str(v).replace('|', '/')} |")
    return "\n".join(out)


def fnum(x):
    if x is None or x != x:
        return "n/a"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def fratio(a, b, digits=2):
    """a / b as '1.23x', or the reason there is none."""
    if a is None or b is None or a != a or b != b or b == 0:
        return "n/a"
    return f"{a / b:.{digits}f}x"


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        pass
