"""Validates envelopes against the XML Schema inside a MultiSpeak WSDL (our references: test/multispeak/wsdl/).

stdin: JSON [{"name", "wsdl", "namespace", "operation", "soapAction", "xml"}]. stdout: JSON
[{"name", "errors": [...]}]: the header element and the body element each validated as a document of the
schema, the SOAPAction (when given) compared with the WSDL's SOAP 1.1 binding."""
import json
import sys

from lxml import etree

from wsdl_schema import compile_schema, load_schema, soap_actions

SOAP_ENV = 'http://schemas.xmlsoap.org/soap/envelope/'
cache = {}


def schema_for(wsdl, namespace):
    if wsdl not in cache:
        tree, files = load_schema(wsdl)
        cache[wsdl] = (compile_schema(files, namespace), soap_actions(tree))
    return cache[wsdl]


def check(item):
    errors = []
    schema, actions = schema_for(item['wsdl'], item['namespace'])
    env = etree.fromstring(item['xml'].encode('utf-8'))
    if env.tag != f'{{{SOAP_ENV}}}Envelope':
        return [f'root is {env.tag}']
    header = env.find(f'{{{SOAP_ENV}}}Header')
    body = env.find(f'{{{SOAP_ENV}}}Body')
    parts = [] if header is None else list(header)
    parts += [] if body is None else list(body)
    if len(parts) != 2:
        errors.append(f'expected one header and one body element, got {len(parts)}')
    for el in parts:
        doc = etree.fromstring(etree.tostring(el))
        if not schema.validate(doc):
            errors += [f'{etree.QName(el).localname}: line {e.line}: {e.message}' for e in schema.error_log]
    if body is not None and len(body) and etree.QName(body[0]).localname != item['operation']:
        errors.append(f'body element {etree.QName(body[0]).localname} is not {item["operation"]}')
    expected = f'"{actions.get(item["operation"])}"'
    if item.get('soapAction') is not None and item['soapAction'] != expected:
        errors.append(f'SOAPAction {item["soapAction"]} is not the WSDL binding\'s {expected}')
    return errors


items = json.load(sys.stdin)
json.dump([{'name': i['name'], 'errors': check(i)} for i in items], sys.stdout)
