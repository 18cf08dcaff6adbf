"""The opendnp3 master (PyPI yadnp3) of bench/dnp3.bench.ts, driven over stdin, one JSON line out per answer.

argv: port ca cert key. Mutual TLS to 127.0.0.1:port, master 1, outstation 10, opendnp3's own start-up
sequence (clear restart, disable unsolicited, integrity poll, time sync, ENABLE UNSOLICITED for classes 1/2/3:
opendnp3's default unsolicited class mask). Times are time.monotonic_ns(), the same CLOCK_MONOTONIC as Node's
process.hrtime.bigint(), so the bench can subtract its own send times from them.

First line, once the start-up tasks are done:
  {"cmd": "startup", "integrityMs": ..., "binary": n, "analog": n}
Commands:
  integrity   READ class 1/2/3/0 (one user task) ->
              {"cmd": "integrity", "firstMs": ms to the first response fragment, "completeMs": ms to the task's
               end, "fragments": n, "binary": static binaries, "analog": static analogs, "events": n, "result": ...}
  watch       from now on, every binary event is printed as it arrives:
              {"ev": "binary", "index": i, "value": bool, "unsolicited": bool, "t": monotonic ns}
  quit
The SOE handler only counts static values, so the Python side adds as little as it can to a poll's time.
"""
import json
import sys
import threading
import time

import opendnp3 as o


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class SOE(o.ISOEHandler):
    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()
        self.unsolicited = False
        self.first_ns = None
        self.fragments = 0
        self.binary = 0
        self.analog = 0
        self.events = 0
        self.watch = False

    def reset(self):
        with self.lock:
            self.first_ns, self.fragments, self.binary, self.analog, self.events = None, 0, 0, 0, 0

    def BeginFragment(self, info):
        self.unsolicited = bool(info.unsolicited)
        if not info.unsolicited:
            with self.lock:
                self.fragments += 1
                if self.first_ns is None:
                    self.first_ns = time.monotonic_ns()

    def EndFragment(self, info):
        pass

    def Process(self, info, values):
        now = time.monotonic_ns()
        if not info.isEventVariation:
            n = len(values)
            with self.lock:
                kind = None
                for it in values:
                    kind = it.value
                    break
                if isinstance(kind, o.Binary):
                    self.binary += n
                elif isinstance(kind, o.Analog):
                    self.analog += n
            return
        lines = []
        for it in values:
            v = it.value
            if isinstance(v, o.Binary) and self.watch:
                lines.append({"ev": "binary", "index": int(it.index), "value": bool(v.value),
                              "unsolicited": self.unsolicited, "t": now})
        with self.lock:
            self.events += len(values)
        for line in lines:
            out(line)


class App(o.IMasterApplication):
    def __init__(self):
        super().__init__()
        self.opened = threading.Event()
        self.done = {}
        self.cond = threading.Condition()

    def OnReceiveIIN(self, iin):
        pass

    def OnTaskStart(self, type, id):
        pass

    def OnTaskComplete(self, info):
        with self.cond:
            self.done[info.type] = self.done.get(info.type, []) + [(time.monotonic_ns(), str(info.result))]
            self.cond.notify_all()

    def wait_for(self, task_type, count, timeout):
        """Waits until `task_type` completed `count` times; returns (ns, result) of the last one."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while len(self.done.get(task_type, [])) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)
            return self.done[task_type][count - 1]

    def OnOpen(self):
        self.opened.set()

    def OnClose(self):
        pass

    def AssignClassDuringStartup(self):
        return False

    def Now(self):
        return o.UTCTimestamp(int(time.time() * 1000))


def main():
    port, ca, cert, key = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    mgr = o.DNP3Manager(1)
    channel = mgr.AddTLSClient("tls", o.levels.NOTHING, o.ChannelRetry.Default(),
                               [o.IPEndpoint("127.0.0.1", int(port))], "0.0.0.0", o.TLSConfig(ca, cert, key), None)
    cfg = o.MasterStackConfig()
    cfg.link.LocalAddr = 1
    cfg.link.RemoteAddr = 10
    cfg.master.disableUnsolOnStartup = True
    cfg.master.timeSyncMode = o.TimeSyncMode.NonLAN
    # A 160,000-point integrity poll is ~240 fragments; the timeout runs per fragment, so 10 s is plenty.
    cfg.master.responseTimeout = o.TimeDuration.Seconds(10)
    soe, app = SOE(), App()
    master = channel.AddMaster("master", soe, app, cfg)
    t0 = time.monotonic_ns()
    master.Enable()
    if not app.opened.wait(30):
        out({"cmd": "startup", "error": "channel did not open"})
        return
    integrity = app.wait_for(o.MasterTaskType.STARTUP_INTEGRITY_POLL, 1, 600)
    unsol = app.wait_for(o.MasterTaskType.ENABLE_UNSOLICITED, 1, 60)
    out({"cmd": "startup", "integrityMs": None if integrity is None else (integrity[0] - t0) / 1e6,
         "integrityResult": None if integrity is None else integrity[1],
         "unsolicited": None if unsol is None else unsol[1], "binary": soe.binary, "analog": soe.analog})
    polls = 0
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "quit":
            break
        if cmd == "watch":
            soe.watch = True
            out({"cmd": "watch"})
        elif cmd == "integrity":
            soe.reset()
            polls += 1
            start = time.monotonic_ns()
            master.ScanClasses(o.ClassField.AllClasses(), soe)
            done = app.wait_for(o.MasterTaskType.USER_TASK, polls, 600)
            with soe.lock:
                out({"cmd": "integrity",
                     "firstMs": None if soe.first_ns is None else (soe.first_ns - start) / 1e6,
                     "completeMs": None if done is None else (done[0] - start) / 1e6,
                     "result": "timeout" if done is None else done[1],
                     "fragments": soe.fragments, "binary": soe.binary, "analog": soe.analog, "events": soe.events})
    mgr.Shutdown()


if __name__ == "__main__":
    main()
