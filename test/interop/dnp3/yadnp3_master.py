"""An opendnp3 master (PyPI yadnp3) driven over stdin, for the interop tests (shared set-up: yadnp3_common.py).

argv: port ca cert key [addresses [indexes]]
  addresses  outstation link addresses, comma-separated (default 10): one association each on one mutual-TLS
             channel (master 1). Each runs the opendnp3 start-up sequence (clear restart, disable
             unsolicited, integrity poll, non-LAN time sync).
  indexes    optional comma-separated point indexes: only measurements at these indexes are listed (all are
             counted), so a poll of 160,000 points does not become a 20 MB JSON line.
Answers stdin commands with one JSON line each:
  integrity [address] -> READ class 1/2/3/0,   events [address] -> READ class 1/2/3,   quit
  (without an address: every association, one after the other);
  read <g> <v> [address] -> READ g/v all objects (qualifier 06);  range <g> <v> <start> <stop> [address] ->
  READ g/v start-stop (qualifier 00 or 01, opendnp3 picks by size).
Each answer lists the measurements received: outstation (address), kind, event, gv, index, value, flags,
time (ms); `counts` per address of static and event values; the last IIN (of the first association, and
per address in `iins`).
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opendnp3 as o  # noqa: E402
from yadnp3_common import associations, open_channel, out, parse_addresses  # noqa: E402


class SOE(o.ISOEHandler):
    def __init__(self, address, indexes):
        super().__init__()
        self.address = address
        self.indexes = indexes
        self.items = []
        self.counts = {}
        self.lock = threading.Lock()

    def BeginFragment(self, info):
        pass

    def EndFragment(self, info):
        pass

    def Process(self, info, values):
        with self.lock:
            for it in values:
                v = it.value
                if isinstance(v, o.Binary):
                    kind, value = "binary", bool(v.value)
                elif isinstance(v, o.Analog):
                    kind, value = "analog", float(v.value)
                else:
                    continue
                event = bool(info.isEventVariation)
                key = f"{kind}{'Events' if event else ''}"
                self.counts[key] = self.counts.get(key, 0) + 1
                index = int(it.index)
                if self.indexes is not None and index not in self.indexes:
                    continue
                self.items.append({"outstation": self.address, "kind": kind, "event": event, "gv": str(info.gv),
                                   "index": index, "value": value, "flags": int(v.flags.value),
                                   "time": int(v.time.value)})

    def take(self):
        with self.lock:
            out_items, counts = self.items, self.counts
            self.items, self.counts = [], {}
            return out_items, counts


def answer(cmd, assocs):
    items, counts = [], {}
    for a in assocs:
        got, c = a.soe.take()
        items += got
        counts[str(a.address)] = c
    out({"cmd": cmd, "items": items, "counts": counts, "iin": assocs[0].app.iin,
         "iins": {str(a.address): a.app.iin for a in assocs}})


def main():
    port, ca, cert, key = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    addresses = parse_addresses(sys.argv[5] if len(sys.argv) > 5 else "")
    indexes = {int(i) for i in sys.argv[6].split(",") if i} if len(sys.argv) > 6 else None
    mgr, channel = open_channel(port, ca, cert, key)
    assocs = associations(channel, addresses, lambda a: SOE(a, indexes), response_timeout_s=3)
    for a in assocs:
        a.app.opened.wait(10)
    for a in assocs:
        a.app.wait_for(o.MasterTaskType.STARTUP_INTEGRITY_POLL, 1, 30)
    time.sleep(2.0)  # the rest of the start-up sequence (time sync) and IIN settle
    answer("startup", assocs)
    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] == "quit":
            break
        cmd = parts[0]
        if cmd in ("read", "range"):
            n = 3 if cmd == "read" else 5
            targets = [a for a in assocs if len(parts) <= n or a.address == int(parts[n])]
            gv = o.GroupVariationID(int(parts[1]), int(parts[2]))
            for a in targets:
                a.user_tasks += 1
                if cmd == "read":
                    a.master.ScanAllObjects(gv, a.soe)
                else:
                    a.master.ScanRange(gv, int(parts[3]), int(parts[4]), a.soe)
                a.wait_scan(a.user_tasks, 30)
            time.sleep(0.2)
            answer(line.strip(), assocs)
            continue
        targets = [a for a in assocs if len(parts) < 2 or a.address == int(parts[1])]
        classes = o.ClassField.AllClasses() if cmd == "integrity" else o.ClassField.AllEventClasses()
        if cmd in ("integrity", "events"):
            for a in targets:
                a.wait_scan(a.scan(classes), 30)
        time.sleep(0.2)  # IIN of the confirm round trip
        answer(line.strip(), assocs)
    mgr.Shutdown()


if __name__ == "__main__":
    main()
