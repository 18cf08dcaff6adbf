"""The opendnp3 master (PyPI yadnp3) of bench/dnp3.bench.ts, driven over stdin, one JSON line out per answer.
Channel, associations and task tracking are the interop test's (test/interop/dnp3/yadnp3_common.py); only
the counting SOE handler and the timing are the bench's own.

argv: port ca cert key addresses. Mutual TLS to 127.0.0.1:port, master 1, one association per outstation
address (comma-separated: one per bank, 10,11,...) on the one channel, each running opendnp3's start-up
sequence (clear restart, disable unsolicited, integrity poll, time sync, ENABLE UNSOLICITED for classes
1/2/3: opendnp3's default unsolicited class mask). Times are time.monotonic_ns(), the same CLOCK_MONOTONIC as
Node's process.hrtime.bigint(), so the bench can subtract its own send times from them.

First line, once the start-up tasks of every association are done:
  {"cmd": "startup", "integrityMs": ms to the last start-up integrity poll's end, "integrityResult": ...,
   "unsolicited": ..., "banks": {address: {"integrityMs", "integrityResult", "unsolicited", "binary", "analog"}}}
Commands:
  integrity <address>   READ class 1/2/3/0 of one association (one user task) ->
              {"cmd": "integrity", "address": a, "firstMs": ms to the first response fragment, "completeMs": ms
               to the task's end, "fragments": n, "binary": static binaries, "analog": static analogs,
               "events": n, "result": ...}
  integrity all         the same READ started on every association at once; opendnp3 runs the tasks of one
              channel one after the other -> {"cmd": "integrity", "address": "all", "completeMs": ms until the
               last one ended, "banks": {address: answer as above}}
  watch       from now on, every binary event is printed as it arrives:
              {"ev": "binary", "outstation": address, "index": i, "value": bool, "unsolicited": bool, "t": ns}
  quit
The SOE handler only counts static values, so the Python side adds as little as it can to a poll's time.
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "interop", "dnp3"))
import opendnp3 as o  # noqa: E402
from yadnp3_common import associations, open_channel, out, parse_addresses  # noqa: E402


class CountingSOE(o.ISOEHandler):
    def __init__(self, address):
        super().__init__()
        self.address = address
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
                lines.append({"ev": "binary", "outstation": self.address, "index": int(it.index), "value": bool(v.value),
                              "unsolicited": self.unsolicited, "t": now})
        with self.lock:
            self.events += len(values)
        for line in lines:
            out(line)


def poll_answer(a, start, done):
    soe = a.soe
    with soe.lock:
        return {"cmd": "integrity", "address": a.address,
                "firstMs": None if soe.first_ns is None else (soe.first_ns - start) / 1e6,
                "completeMs": None if done is None else (done[0] - start) / 1e6,
                "result": "timeout" if done is None else done[1],
                "fragments": soe.fragments, "binary": soe.binary, "analog": soe.analog, "events": soe.events}


def main():
    port, ca, cert, key = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    addresses = parse_addresses(sys.argv[5] if len(sys.argv) > 5 else "")
    mgr, channel = open_channel(port, ca, cert, key)
    t0 = time.monotonic_ns()
    # A 64,000-point bank is ~190 fragments; the timeout runs per fragment, so 10 s is plenty.
    assocs = associations(channel, addresses, CountingSOE, response_timeout_s=10)
    if not all(a.app.opened.wait(30) for a in assocs):
        out({"cmd": "startup", "error": "channel did not open"})
        return
    banks = {}
    for a in assocs:
        integrity = a.app.wait_for(o.MasterTaskType.STARTUP_INTEGRITY_POLL, 1, 600)
        unsol = a.app.wait_for(o.MasterTaskType.ENABLE_UNSOLICITED, 1, 60)
        banks[str(a.address)] = {"integrityMs": None if integrity is None else (integrity[0] - t0) / 1e6,
                                 "integrityResult": None if integrity is None else integrity[1],
                                 "unsolicited": None if unsol is None else unsol[1],
                                 "binary": a.soe.binary, "analog": a.soe.analog}
    results = list(banks.values())
    failed = [b for b in results if b["integrityResult"] is None]
    out({"cmd": "startup",
         "integrityMs": None if failed else max(b["integrityMs"] for b in results),
         "integrityResult": (failed[0] if failed else results[-1])["integrityResult"],
         "unsolicited": results[-1]["unsolicited"], "banks": banks})
    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] == "quit":
            break
        if parts[0] == "watch":
            for a in assocs:
                a.soe.watch = True
            out({"cmd": "watch"})
        elif parts[0] == "integrity":
            targets = [a for a in assocs if len(parts) < 2 or parts[1] == "all" or a.address == int(parts[1])]
            for a in targets:
                a.soe.reset()
            start = time.monotonic_ns()
            counts = [(a, a.scan(o.ClassField.AllClasses())) for a in targets]
            dones = [(a, a.wait_scan(n, 600)) for a, n in counts]
            answers = {str(a.address): poll_answer(a, start, done) for a, done in dones}
            if len(parts) > 1 and parts[1] == "all":
                ends = [d[0] for _, d in dones if d is not None]
                out({"cmd": "integrity", "address": "all",
                     "completeMs": None if len(ends) < len(dones) else (max(ends) - start) / 1e6,
                     "banks": answers})
            else:
                out(next(iter(answers.values())))
    mgr.Shutdown()


if __name__ == "__main__":
    main()
