"""The XML Schema inside a WSDL, compiled by lxml: every inline <schema> written to its own file, each
<import namespace=...> pointed at the file of that namespace, so cross-namespace types resolve."""
import os
import tempfile

from lxml import etree

XS = 'http://www.w3.org/2001/XMLSchema'
WSDL = 'http://schemas.xmlsoap.org/wsdl/'


def load_schema(wsdl_path):
    tree = etree.parse(wsdl_path)
    schemas = tree.getroot().findall(f'{{{WSDL}}}types/{{{XS}}}schema')
    tmp = tempfile.mkdtemp(prefix='wsdl-schema-')
    files = {}
    for i, s in enumerate(schemas):
        files[s.get('targetNamespace')] = os.path.join(tmp, f'schema{i}.xsd')
    for s in schemas:
        copy = etree.fromstring(etree.tostring(s))
        for imp in copy.findall(f'{{{XS}}}import'):
            ns = imp.get('namespace')
            if ns in files:
                imp.set('schemaLocation', files[ns])
        with open(files[s.get('targetNamespace')], 'wb') as f:
            f.write(etree.tostring(copy))
    return tree, files


def compile_schema(files, namespace):
    return etree.XMLSchema(etree.parse(files[namespace]))


def soap_actions(tree):
    """operation name -> soapAction of the SOAP 1.1 binding."""
    soap = 'http://schemas.xmlsoap.org/wsdl/soap/'
    out = {}
    for binding in tree.getroot().findall(f'{{{WSDL}}}binding'):
        if binding.find(f'{{{soap}}}binding') is None:
            continue
        for op in binding.findall(f'{{{WSDL}}}operation'):
            action = op.find(f'{{{soap}}}operation')
            if action is not None:
                out[op.get('name')] = action.get('soapAction')
    return out
