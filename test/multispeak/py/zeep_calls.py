"""An unmodified zeep client calling PingURL and GetMethods on our served WSDL, the calls an OMS adapter makes
before it syncs. argv: wsdl_url version user pwd. stdout JSON: {"ping": [...errorObjects], "methods": [...]}
or {"fault": "...", "code": "..."}."""
import json
import sys

from zeep.exceptions import Fault

from msg_header import client_and_header

wsdl, version, user, pwd = sys.argv[1:5]
client, request_header = client_and_header(wsdl, version, user, pwd)
headers = [request_header]
try:
    ping = client.service.PingURL(_soapheaders=headers)
    methods = client.service.GetMethods(_soapheaders=headers)
except Fault as fault:
    print(json.dumps({'fault': fault.message, 'code': fault.code}))
    sys.exit(0)


def body(result, name):
    b = result.body if hasattr(result, 'body') else result
    return b[name] if hasattr(result, 'body') else b


ping_result = body(ping, 'PingURLResult')
methods_result = body(methods, 'GetMethodsResult')
print(json.dumps({
    'ping': [] if ping_result is None else [dict(objectID=e['objectID'], errorString=e['errorString']) for e in (ping_result['errorObject'] or [])],
    'methods': [] if methods_result is None else list(methods_result['string'] or []),
}))
