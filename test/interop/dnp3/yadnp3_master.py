"""An opendnp3 master (PyPI yadnp3) driven over stdin, for the interop test.

argv: port ca cert key. Connects over mutual TLS to 127.0.0.1:port (master 1, outstation 10), runs the
opendnp3 start-up sequence (clear restart, disable unsolicited, integrity poll, non-LAN time sync), then
answers stdin commands with one JSON line each:
  integrity -> READ class 1/2/3/0,   events -> READ class 1/2/3,   quit
Each answer lists the measurements received: kind, event, gv, index, value, flags, time (ms), plus the last IIN.
"""
import json
import sys
import threading
import time

import opendnp3 as o


class SOE(o.ISOEHandler):
    def __init__(self):
        super().__init__()
        self.items = []
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
                self.items.append({"kind": kind, "event": bool(info.isEventVariation), "gv": str(info.gv),
                                   "index": int(it.index), "value": value, "flags": int(v.flags.value),
                                   "time": int(v.time.value)})

    def take(self):
        with self.lock:
            out, self.items = self.items, []
            return out


class App(o.IMasterApplication):
    def __init__(self):
        super().__init__()
        self.iin = {}
        self.opened = threading.Event()

    def OnReceiveIIN(self, iin):
        self.iin = {"restart": iin.IsSet(o.IINBit.DEVICE_RESTART), "needTime": iin.IsSet(o.IINBit.NEED_TIME),
                    "overflow": iin.IsSet(o.IINBit.EVENT_BUFFER_OVERFLOW)}

    def OnTaskStart(self, type, id):
        pass

    def OnTaskComplete(self, info):
        pass

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
    tls = o.TLSConfig(ca, cert, key)
    channel = mgr.AddTLSClient("tls", o.levels.NOTHING, o.ChannelRetry.Default(),
                               [o.IPEndpoint("127.0.0.1", int(port))], "0.0.0.0", tls, None)
    cfg = o.MasterStackConfig()
    cfg.link.LocalAddr = 1
    cfg.link.RemoteAddr = 10
    cfg.master.disableUnsolOnStartup = True
    cfg.master.timeSyncMode = o.TimeSyncMode.NonLAN
    cfg.master.responseTimeout = o.TimeDuration.Seconds(3)
    soe, app = SOE(), App()
    master = channel.AddMaster("master", soe, app, cfg)
    master.Enable()
    app.opened.wait(10)
    time.sleep(2.0)
    print(json.dumps({"cmd": "startup", "items": soe.take(), "iin": app.iin}), flush=True)
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "quit":
            break
        if cmd == "integrity":
            master.ScanClasses(o.ClassField.AllClasses(), soe)
        elif cmd == "events":
            master.ScanClasses(o.ClassField.AllEventClasses(), soe)
        time.sleep(1.0)
        print(json.dumps({"cmd": cmd, "items": soe.take(), "iin": app.iin}), flush=True)
    mgr.Shutdown()


if __name__ == "__main__":
    main()
