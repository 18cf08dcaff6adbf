# The IEC 104 controlling station of the interop test: c104 (PyPI, over lib60870-C; GPL, run as a test peer
# only; c104 checks callback signatures, hence the annotations) connects over mutual TLS, and one JSON line is printed per point message it decodes (with its cause,
# value, quality and device timestamp) and per command. Arguments: port, CA, certificate, key, common addresses
# (comma-separated), seconds to wait for the connection, and `standby` to connect without starting data transfer
# (a redundancy group's connection standing by). Commands on stdin: gi CA, clock CA, test CA, start (STARTDT),
# stop (STOPDT), quit.
import json
import sys
import threading
import time

import c104

port, ca_file, cert_file, key_file, cas = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]


_out = threading.Lock()


def emit(o):
    # c104 calls back from its own threads: one whole line at a time.
    with _out:
        print(json.dumps(o), flush=True)


tls = c104.TransportSecurity(validate=True, only_known=False)
tls.set_certificate(cert=cert_file, key=key_file)
tls.set_ca_certificate(cert=ca_file)
tls.set_version(min=c104.TlsVersion.TLS_1_2, max=c104.TlsVersion.TLS_1_2)
# The development certificates are ECDSA P-256 (infra/certs.sh); IEC 62351-3 lists this suite.
tls.set_ciphers(ciphers=[c104.TlsCipher.ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, c104.TlsCipher.ECDHE_ECDSA_WITH_AES_256_GCM_SHA384])
# A generous command timeout: the test machine is shared, and c104 handles replies on its own thread.
client = c104.Client(tick_rate_ms=50, command_timeout_ms=60000, transport_security=tls)
standby = len(sys.argv) > 7 and sys.argv[7] == "standby"
conn = client.add_connection(ip="127.0.0.1", port=port, init=c104.Init.MUTED if standby else c104.Init.NONE)
for ca in cas.split(","):
    conn.add_station(common_address=int(ca))


QUALITY = ["Invalid", "NonTopical", "Substituted", "Blocked", "Overflow"]


def ms(dt):
    return None if dt is None else int(round(dt.timestamp() * 1000))


def emit_point(ca, ioa, type_name, cot, info):
    value = info.value if hasattr(info, "value") else None
    emit({"ev": "point", "ca": ca, "ioa": ioa, "type": type_name, "cot": cot, "value": float(value) if value is not None else None,
          "quality": [n for n in QUALITY if getattr(c104.Quality, n) in info.quality], "recordedAt": ms(info.recorded_at)})


def on_receive(point: c104.Point, previous_info: c104.Information, message: c104.IncomingMessage) -> c104.ResponseState:
    emit_point(point.station.common_address, point.io_address, message.type.name, message.cot.name, point.info)
    return c104.ResponseState.SUCCESS


def on_new_point(client: c104.Client, station: c104.Station, io_address: int, point_type: c104.Type) -> None:
    p = station.add_point(io_address=io_address, type=point_type)
    p.on_receive(callable=on_receive)


def on_receive_raw(connection: c104.Connection, data: bytes) -> None:
    # Every I frame as lib60870 reads its header: type, cause, P/N, common address.
    d = c104.explain_bytes_dict(apdu=data)
    if d.get("format") == "I":
        emit({"ev": "asdu", "type": d["type"].name, "cot": d["cot"].name, "negative": d["negative"], "ca": d["commonAddress"],
              "objects": d["numberOfObjects"]})


def on_unexpected(connection: c104.Connection, message: c104.IncomingMessage, cause: c104.Umc) -> None:
    # c104 keeps one type per point, so the timed type of a spontaneous event (M_SP_TB_1 for a point
    # interrogated as M_SP_NA_1) arrives here: read its objects from the message as lib60870 decoded them.
    if cause.name == "MISMATCHED_TYPE_ID":
        message.first()  # before the first element; next() loads each in turn
        while message.next():
            emit_point(message.common_address, message.io_address, message.type.name, message.cot.name, message.info)
    else:
        emit({"ev": "unexpected", "cause": cause.name, "type": message.type.name, "cot": message.cot.name})


def on_state_change(connection: c104.Connection, state: c104.ConnectionState) -> None:
    emit({"ev": "state", "state": state.name})


client.on_new_point(callable=on_new_point)
conn.on_state_change(callable=on_state_change)


def on_send_raw(connection: c104.Connection, data: bytes) -> None:
    d = c104.explain_bytes_dict(apdu=data)
    emit({"ev": "sent", "format": d.get("format"), "rx": d.get("rx"), "type": d["type"].name if d.get("type") else None})


conn.on_send_raw(callable=on_send_raw)
conn.on_receive_raw(callable=on_receive_raw)
conn.on_unexpected_message(callable=on_unexpected)
client.start()
deadline = time.time() + float(sys.argv[6] if len(sys.argv) > 6 else 30)
# OPEN: STARTDT con received. c104 usually sends STARTDT act itself; if it stays muted, unmute sends it.
muted_since = None
while standby and conn.state != c104.ConnectionState.OPEN_MUTED and time.time() < deadline:
    time.sleep(0.05)
while not standby and conn.state != c104.ConnectionState.OPEN and time.time() < deadline:
    if conn.state == c104.ConnectionState.OPEN_MUTED:
        muted_since = muted_since or time.time()
        if time.time() - muted_since > 3:
            conn.unmute()
            muted_since = None
    time.sleep(0.05)
while not standby and conn.state != c104.ConnectionState.OPEN and time.time() < deadline:
    time.sleep(0.05)
emit({"ev": "connected", "ok": conn.state == (c104.ConnectionState.OPEN_MUTED if standby else c104.ConnectionState.OPEN)})

for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    cmd = parts[0]
    if cmd == "quit":
        break
    if cmd in ("start", "stop"):
        ok = conn.unmute() if cmd == "start" else conn.mute()
        emit({"ev": cmd, "ok": bool(ok)})
        continue
    ca = int(parts[1])
    if cmd == "gi":
        ok = conn.interrogation(common_address=ca, cause=c104.Cot.ACTIVATION, qualifier=c104.Qoi.STATION)
    elif cmd == "clock":
        ok = conn.clock_sync(common_address=ca)
    elif cmd == "test":
        ok = conn.test(common_address=ca, with_time=True)
    else:
        ok = False
    emit({"ev": cmd, "ca": ca, "ok": bool(ok)})

client.stop()
