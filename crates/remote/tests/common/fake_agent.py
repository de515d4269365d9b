# A fake iolab agent for iolab-remote's tests: speaks the frames of
# proto.rs (hello, pong, heartbeat, note) and misbehaves as MODE says.
# The test writes it with MODE and VERSION filled in.
import json, os, socket, struct, sys, threading, time

MODE = "@MODE@"
VERSION = "@VERSION@"
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


if MODE == "banner":
    out.write(b"Welcome to the test host!\n")
    out.flush()
hello = read()
if hello is None:
    sys.exit(3)
beat_s = hello["heartbeat_ms"] / 1000.0
host = {
    "hostname": os.environ.get("IOLAB_HOST", socket.gethostname()),
    "kernel": os.uname().release,
    "os": os.path.realpath(sys.argv[0]),
    "cpus": os.cpu_count(),
    "memory_bytes": 0,
}
send({"type": "hello", "protocol": 1, "version": VERSION, "arch": os.uname().machine,
      "host": host, "pid": os.getpid()})


def beat():
    while True:
        time.sleep(beat_s)
        send({"type": "heartbeat"})


if MODE != "mute":
    threading.Thread(target=beat, daemon=True).start()
while True:
    m = read()
    if m is None and MODE == "deaf":
        time.sleep(3600)
    if m is None:
        sys.exit(0)
    t = m["type"]
    if t == "ping":
        send({"type": "pong", "seq": m["seq"], "clock_ns": now()})
    elif t == "stop" and MODE == "slowbig":
        # A 1 MiB note sent at about 320 KB/s, heartbeats held back
        # meanwhile (as the real agent's writer lock does).
        body = json.dumps({"type": "note", "index": 0, "message": "x" * (1 << 20)}).encode()
        with lock:
            out.write(b"iolb" + struct.pack(">I", len(body)))
            for k in range(0, len(body), 32768):
                out.write(body[k:k + 32768])
                out.flush()
                time.sleep(0.1)
    elif t == "stop" and MODE == "flood":
        # 50000 notes as fast as they go; how many went, in ./sent.
        sent = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "sent")
        for n in range(50000):
            send({"type": "note", "index": n, "message": "y" * 100})
            if n % 100 == 99:
                with open(sent + ".tmp", "w") as f:
                    f.write(str(n + 1))
                os.replace(sent + ".tmp", sent)
    elif t == "stop":
        send({"type": "note", "index": 0, "message": "stopped on " + host["hostname"]})
    elif t == "bye" and MODE not in ("stubborn", "deaf"):
        sys.exit(0)
