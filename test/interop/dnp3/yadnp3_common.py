"""The opendnp3 (PyPI yadnp3) master set-up shared by the interop test (yadnp3_master.py) and the bench
(bench/dnp3_master.py): one mutual-TLS channel to 127.0.0.1:port, one master association per outstation
link address on it (DNP3 multi-drop: an organisation with more than 8,000 devices has one logical outstation
per bank, at addresses 10, 11, ...), opendnp3's own start-up sequence, and task completion tracking.
"""
import json
import os
import sys
import threading
import time

import opendnp3 as o

MASTER_ADDRESS = 1


def out(obj):
    """One JSON line on stdout (the driver reads one line per answer)."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def parse_addresses(arg, default=10):
    """'10,11' -> [10, 11]; empty -> [default]."""
    return [int(a) for a in arg.split(",") if a] if arg else [default]


def open_channel(port, ca, cert, key, threads=1):
    """A DNP3Manager and one TLS client channel (mutual TLS) to the outstation on 127.0.0.1:port."""
    mgr = o.DNP3Manager(threads)
    channel = mgr.AddTLSClient("tls", o.levels.NOTHING, o.ChannelRetry.Default(),
                               [o.IPEndpoint("127.0.0.1", int(port))], "0.0.0.0", o.TLSConfig(ca, cert, key), None)
    return mgr, channel


def stack_config(outstation_address, response_timeout_s):
    cfg = o.MasterStackConfig()
    cfg.link.LocalAddr = MASTER_ADDRESS
    cfg.link.RemoteAddr = outstation_address
    cfg.master.disableUnsolOnStartup = True
    # YADNP3_TIME_SYNC=LAN: RECORD_CURRENT_TIME + WRITE g50v3 instead of DELAY_MEASURE + WRITE g50v1.
    cfg.master.timeSyncMode = o.TimeSyncMode.LAN if os.environ.get("YADNP3_TIME_SYNC") == "LAN" else o.TimeSyncMode.NonLAN
    # The timeout runs per response fragment, not per task.
    cfg.master.responseTimeout = o.TimeDuration.Seconds(response_timeout_s)
    return cfg


class MasterApp(o.IMasterApplication):
    """IIN bits, channel open, and every completed task (monotonic ns, result) by task type."""

    def __init__(self):
        super().__init__()
        self.iin = {}
        self.opened = threading.Event()
        self.done = {}
        self.cond = threading.Condition()

    def OnReceiveIIN(self, iin):
        self.iin = {"restart": iin.IsSet(o.IINBit.DEVICE_RESTART), "needTime": iin.IsSet(o.IINBit.NEED_TIME),
                    "overflow": iin.IsSet(o.IINBit.EVENT_BUFFER_OVERFLOW)}

    def OnTaskStart(self, type, id):
        pass

    def OnTaskComplete(self, info):
        with self.cond:
            self.done[info.type] = self.done.get(info.type, []) + [(time.monotonic_ns(), str(info.result))]
            self.cond.notify_all()

    def completed(self, task_type):
        with self.cond:
            return len(self.done.get(task_type, []))

    def wait_for(self, task_type, count, timeout):
        """Waits until `task_type` completed `count` times; returns (ns, result) of that one, None on timeout."""
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
        # YADNP3_CLOCK_OFFSET_MS: the master's clock runs this far from the host's, so a test can tell the
        # time the master wrote from the outstation's own.
        return o.UTCTimestamp(int(time.time() * 1000) + int(os.environ.get("YADNP3_CLOCK_OFFSET_MS", "0")))


class Association:
    """One master association (outstation address) on the shared channel, with its own SOE handler and app."""

    def __init__(self, channel, address, soe, response_timeout_s=3):
        self.address = address
        self.soe = soe
        self.app = MasterApp()
        self.master = channel.AddMaster(f"master{address}", soe, self.app, stack_config(address, response_timeout_s))
        self.user_tasks = 0

    def scan(self, classes):
        """Starts READ of `classes` (o.ClassField); returns the user-task count to wait for."""
        self.user_tasks += 1
        self.master.ScanClasses(classes, self.soe)
        return self.user_tasks

    def wait_scan(self, count, timeout):
        return self.app.wait_for(o.MasterTaskType.USER_TASK, count, timeout)


def associations(channel, addresses, make_soe, response_timeout_s=3):
    """One association per address, all enabled (each runs opendnp3's start-up sequence)."""
    found = [Association(channel, a, make_soe(a), response_timeout_s) for a in addresses]
    for a in found:
        a.master.Enable()
    return found
