"""Our served WSDL's types against a reference MultiSpeak WSDL (test/multispeak/wsdl/: the official document's
facts). stdin JSON {"served": xml, "official": path, "namespace": ns}. Every type we declare must exist there
with the same base; our elements must be there, of the same type and occurrence, in the same order; the elements
we leave out must be optional there; our attributes must be there with the same type; enumerations must be
equal. Type names are compared as qualified names, whatever prefix each document uses. stdout JSON: list of
problems."""
import json
import sys

from lxml import etree

XS = 'http://www.w3.org/2001/XMLSchema'
WSDL = 'http://schemas.xmlsoap.org/wsdl/'


def schema_of(root, ns):
    for s in root.findall(f'{{{WSDL}}}types/{{{XS}}}schema'):
        if s.get('targetNamespace') == ns:
            return s
    raise SystemExit(f'no schema for {ns}')


def named(schema, kind, name):
    return schema.find(f'{{{XS}}}{kind}[@name="{name}"]')


def qname(el, attr):
    """The attribute's prefixed type name as {namespace}local, so `s:string` and `xs:string` are one type."""
    value = el.get(attr)
    if value is None:
        return None
    prefix, _, local = value.rpartition(':')
    return f'{{{el.nsmap.get(prefix or None)}}}{local}'


def elements_of(t):
    seq = t.findall(f'.//{{{XS}}}sequence/{{{XS}}}element')
    return [(e.get('name'), qname(e, 'type'), e.get('minOccurs', '1'), e.get('maxOccurs', '1')) for e in seq]


def base_of(t):
    ext = t.find(f'.//{{{XS}}}extension')
    return qname(ext, 'base') if ext is not None else None


def attrs_of(t):
    return {a.get('name'): qname(a, 'type') for a in t.findall(f'{{{XS}}}attribute')}


def compare(served_xml, official_path, ns):
    problems = []
    ours = schema_of(etree.fromstring(served_xml.encode('utf-8')), ns)
    theirs = schema_of(etree.parse(official_path).getroot(), ns)
    for kind in ('complexType', 'simpleType', 'element'):
        for t in ours.findall(f'{{{XS}}}{kind}'):
            name = t.get('name')
            o = named(theirs, kind, name)
            if o is None:
                problems.append(f'{kind} {name}: not in the official WSDL')
                continue
            if kind == 'simpleType':
                mine = [e.get('value') for e in t.iter(f'{{{XS}}}enumeration')]
                official = [e.get('value') for e in o.iter(f'{{{XS}}}enumeration')]
                if mine != official:
                    problems.append(f'{name}: enumeration {mine} != {official}')
                continue
            if kind == 'element' and qname(t, 'type') != qname(o, 'type'):
                problems.append(f'element {name}: type {t.get("type")} != {o.get("type")}')
            if base_of(t) != base_of(o):
                problems.append(f'{name}: base {base_of(t)} != {base_of(o)}')
            official = elements_of(o)
            pos = 0
            for el in elements_of(t):
                names = [e[0] for e in official]
                if el[0] not in names[pos:]:
                    problems.append(f'{name}.{el[0]}: not in the official sequence (or out of order)')
                    continue
                i = names.index(el[0], pos)
                if official[i] != el:
                    problems.append(f'{name}.{el[0]}: {el} != official {official[i]}')
                for skipped in official[pos:i]:
                    if skipped[2] != '0':
                        problems.append(f'{name}.{skipped[0]}: required officially but left out')
                pos = i + 1
            for skipped in official[pos:]:
                if skipped[2] != '0':
                    problems.append(f'{name}.{skipped[0]}: required officially but left out')
            for a, typ in attrs_of(t).items():
                if attrs_of(o).get(a) != typ:
                    problems.append(f'{name}@{a}: type {typ} != official {attrs_of(o).get(a)}')
    return problems


item = json.load(sys.stdin)
json.dump(compare(item['served'], item['official'], item['namespace']), sys.stdout)
