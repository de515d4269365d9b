# A hostile iolab agent for multi_hostile.rs: speaks the frames of
# iolab_remote::proto well enough to reach a run, then misbehaves as MODE
# says (a flood of events, an interval far past the run's end), with
# notes full of terminal escapes. The test fills in the @...@ fields.
import json, os, struct, sys, threading, time

MODE = "@MODE@"
VERSION = "@VERSION@"
INTERVAL = json.loads('@INTERVAL@')
out = sys.stdout.buffer
inp = sys.stdin.buffer
lock = threading.Lock()


def send(m):
    b = json.dumps(m).encode()
    with lock:
        out.write(b"iolb" + struct.pack(">I", len(b)) + b)
        out.flush()


def read():
    h = inp.read(8)
    if len(h) < 8 or h[:4] != b"iolb":
        return None
    n = struct.unpack(">I", h[4:])[0]
    return json.loads(inp.read(n))


def now():
    return time.clock_gettime_ns(time.CLOCK_REALTIME)


hello = read()
if hello is None:
    sys.exit(3)
host = {"hostname": "evil\x1b]0;owned\x07", "kernel": "6.1", "os": "x",
        "cpus": 1, "memory_bytes": 0}
send({"type": "hello", "protocol": 1, "version": VERSION, "arch": os.uname().machine,
      "host": host, "pid": os.getpid()})


def beat():
    while True:
        time.sleep(hello["heartbeat_ms"] / 1000.0)
        send({"type": "heartbeat"})


threading.Thread(target=beat, daemon=True).start()
while True:
    m = read()
    if m is None:
        sys.exit(0)
    t = m["type"]
    if t == "ping":
        send({"type": "pong", "seq": m["seq"], "clock_ns": now()})
    elif t == "run":
        send({"type": "ready", "index": m["index"]})
    elif t == "start":
        i = m["index"]
        send({"type": "started", "index": i, "at_ns": now()})
        send({"type": "note", "index": i, "message": "\x1b[2J\x1b]52;c;aGk=\x07wiped" + "x" * 5000})
        for k in range(150):
            send({"type": "note", "index": i, "message": "note %d" % k})
        send({"type": "progress", "index": i, "message": "\x1b[2Jfileset at /evil: 1 of 2 files"})
        for k in range(1, 1200):
            send({"type": "progress", "index": i, "message": "progress %d" % k})
        if MODE == "events":
            ev = {"time_ns": 1, "label": "e", "source": "mark"}
            for k in range(100_001):
                send({"type": "event", "index": i, "event": ev})
        elif MODE == "interval":
            send({"type": "interval", "index": i, "total": INTERVAL, "workloads": [None]})
    elif t == "bye":
        sys.exit(0)
