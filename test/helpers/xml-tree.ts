// XML as a plain tree for comparing documents: namespace and local name, attributes, trimmed text, children
// (whitespace between elements ignored). `shapeOf` drops values, keeping what a reader's parser depends on.
import { create } from 'xmlbuilder2';

export interface XmlNode { name: string; attrs: Record<string, string>; text: string; children: XmlNode[] }

interface Dom { nodeType: number; childNodes: ArrayLike<Dom>; localName?: string; namespaceURI?: string | null; nodeValue?: string | null; attributes?: ArrayLike<{ localName: string; namespaceURI: string | null; value: string }> }

function toNode(el: Dom): XmlNode {
  const attrs: Record<string, string> = {};
  for (const a of Array.from(el.attributes ?? [])) {
    if (a.namespaceURI === 'http://www.w3.org/2000/xmlns/') continue; // prefixes are the writer's choice
    attrs[a.localName] = a.value;
  }
  const kids = Array.from(el.childNodes);
  return {
    name: `{${el.namespaceURI ?? ''}}${el.localName ?? ''}`,
    attrs,
    text: kids.filter((k) => k.nodeType === 3 || k.nodeType === 4).map((k) => k.nodeValue ?? '').join('').trim(),
    children: kids.filter((k) => k.nodeType === 1).map(toNode),
  };
}

export function xmlTree(text: string): XmlNode {
  return toNode(create(text).root().node as unknown as Dom);
}

/** Names, attribute names and children, without values: what two answers of one operation share. */
export function shapeOf(n: XmlNode): unknown {
  return { name: n.name, attrs: Object.keys(n.attrs).sort(), children: n.children.map(shapeOf) };
}
