"""An unmodified zeep client of our SCADA_Server: loads the served WSDL, calls GetAllSCADAPoints with a
MultiSpeakMsgHeader. argv: wsdl_url version user pwd. stdout JSON: {"points": [...]} or {"fault": "..."}."""
import json
import sys

from zeep.exceptions import Fault

from msg_header import client_and_header

wsdl, version, user, pwd = sys.argv[1:5]
client, request_header = client_and_header(wsdl, version, user, pwd)
try:
    result = client.service.GetAllSCADAPoints(lastReceived='', _soapheaders=[request_header])
except Fault as fault:
    print(json.dumps({'fault': fault.message, 'code': fault.code}))
    sys.exit(0)
body = result.body if hasattr(result, 'body') else result
points = body['GetAllSCADAPointsResult']['scadaPoint'] if hasattr(result, 'body') else (body['scadaPoint'] if body else [])
header = result.header['MultiSpeakMsgHeader'] if hasattr(result, 'header') and result.header else None
out = []
for p in points or []:
    out.append({
        'objectID': p['objectID'],
        'objectName': p['objectName'] if 'objectName' in p else None,
        'comments': p['comments'],
        'description': p['description'],
        'scadaPointType': p['scadaPointType'],
    })
print(json.dumps({'points': out, 'header': {k: str(header[k]) for k in ('ObjectsRemaining', 'LastSent')} if header is not None else None}))
