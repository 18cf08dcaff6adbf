"""A customer's OMS on loopback: an OA_Server that parses every request with zeep against the reference
OA_Server WSDL of its version (test/multispeak/wsdl/, the official document's facts for the operations faultline
sends) and validates it with lxml against the same WSDL's schema.

argv: port wsdl_dir [certfile keyfile]. HTTP:
  POST /oms            a MultiSpeak request; answered per the current mode
  POST /control        body: ok | 500 | timeout | reset   (how the next requests are answered)
  GET  /received       JSON list of the requests answered 200, in arrival order
  GET  /attempts       JSON list of the MessageID of every request, whatever its outcome
The answer to a request in mode ok is the operation's empty Response element."""
import json
import re
import socket
import ssl
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import zeep
from lxml import etree
from zeep.helpers import serialize_object

from wsdl_schema import compile_schema, load_schema

SOAP_ENV = 'http://schemas.xmlsoap.org/soap/envelope/'
NS = {'4.1': 'http://www.multispeak.org/Version_4.1_Release', '3.0': 'http://www.multispeak.org/Version_3.0'}

port = int(sys.argv[1])
wsdl_dir = sys.argv[2]
clients, schemas = {}, {}
for version in NS:
    path = f'{wsdl_dir}/{version}/OA_Server.wsdl'
    clients[version] = zeep.Client(path)
    _, files = load_schema(path)
    schemas[version] = compile_schema(files, NS[version])

state = {'mode': 'ok', 'received': [], 'attempts': []}
lock = threading.Lock()


def soap11_binding(client):
    for binding in client.wsdl.bindings.values():
        if binding.__class__.__name__ == 'Soap11Binding':
            return binding
    raise RuntimeError('no SOAP 1.1 binding')


def parse(body, soap_action):
    env = etree.fromstring(body)
    op_el = env.find(f'{{{SOAP_ENV}}}Body')[0]
    version = next(v for v, ns in NS.items() if etree.QName(op_el).namespace == ns)
    name = etree.QName(op_el).localname
    operation = soap11_binding(clients[version]).get(name)
    result = operation.input.deserialize(env)
    header = env.find(f'{{{SOAP_ENV}}}Header')
    errors = []
    for el in list(header) + [op_el]:
        doc = etree.fromstring(etree.tostring(el))
        if not schemas[version].validate(doc):
            errors += [e.message for e in schemas[version].error_log]
    return {
        'version': version,
        'operation': name,
        'soapAction': soap_action,
        'expectedSoapAction': operation.soapaction,
        'header': {k: str(v) for k, v in header[0].attrib.items()},
        'body': json.loads(json.dumps(serialize_object(result.body), default=str)),
        'schemaErrors': errors,
    }, version, name


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def reply(self, status, body, ctype='text/xml; charset=utf-8'):
        data = body.encode('utf-8')
        self.send_response(status)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        with lock:
            if self.path == '/received':
                return self.reply(200, json.dumps(state['received']), 'application/json')
            if self.path == '/attempts':
                return self.reply(200, json.dumps(state['attempts']), 'application/json')
        self.reply(404, 'not found', 'text/plain')

    def do_POST(self):
        length = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(length)
        if self.path == '/control':
            with lock:
                state['mode'] = body.decode().strip()
            return self.reply(200, 'ok', 'text/plain')
        found = re.search(rb'MessageID="([^"]*)"', body)
        with lock:
            state['attempts'].append(found.group(1).decode() if found else None)
            mode = state['mode']
        if mode == 'reset':
            # RST instead of FIN: linger 0, then close.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        if mode == 'timeout':
            time.sleep(3)
            return self.reply(200, '')
        if mode == '500':
            return self.reply(500, f'<soap:Envelope xmlns:soap="{SOAP_ENV}"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode>'
                                   '<faultstring>OMS database unavailable</faultstring></soap:Fault></soap:Body></soap:Envelope>')
        try:
            record, version, name = parse(body, self.headers.get('SOAPAction'))
        except Exception as err:  # a request zeep cannot read: a Client fault, and the test sees it
            return self.reply(500, f'<soap:Envelope xmlns:soap="{SOAP_ENV}"><soap:Body><soap:Fault><faultcode>soap:Client</faultcode>'
                                   f'<faultstring>unparseable: {type(err).__name__}</faultstring></soap:Fault></soap:Body></soap:Envelope>')
        with lock:
            state['received'].append(record)
        self.reply(200, f'<soap:Envelope xmlns:soap="{SOAP_ENV}"><soap:Body><{name}Response xmlns="{NS[version]}" /></soap:Body></soap:Envelope>')


server = ThreadingHTTPServer(('127.0.0.1', port), Handler)
if len(sys.argv) > 4:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
print(f'listening {server.server_address[1]}', flush=True)
server.serve_forever()
