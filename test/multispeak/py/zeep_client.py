"""An unmodified zeep client of our SCADA_Server: loads the served WSDL, calls GetAllSCADAPoints with a
MultiSpeakMsgHeader. argv: wsdl_url version user pwd. stdout JSON: {"points": [...]} or {"fault": "..."}."""
import json
import sys

import zeep
from zeep.exceptions import Fault

NS = {'4.1': 'http://www.multispeak.org/Version_4.1_Release', '3.0': 'http://www.multispeak.org/Version_3.0'}

wsdl, version, user, pwd = sys.argv[1:5]
client = zeep.Client(wsdl)
header_type = client.get_element(f'{{{NS[version]}}}MultiSpeakMsgHeader')
fields = {'UserID': user, 'Pwd': pwd}
if version == '4.1':
    fields.update(MajorVersion=4, MinorVersion=1, BuildString='Release')
else:
    fields.update(Version='3.0')
try:
    result = client.service.GetAllSCADAPoints(lastReceived='', _soapheaders=[header_type(**fields)])
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
