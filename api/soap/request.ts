// Reads a SOAP request: size-limited text, no DTD (no XXE, no entity expansion), then the envelope parsed by
// xmlbuilder2 into a namespace-aware DOM. Out: the MultiSpeak version, the operation element and the
// header's attributes. Anything else is a SoapFault.
import { create } from 'xmlbuilder2';
import { NAMESPACE, SOAP_ENV, VERSIONS, type Version } from '../../multispeak/versions.js';
import { SoapFault } from './fault.js';

/** A GetAllSCADAPoints request is a few hundred bytes; 64 KiB leaves room for verbose clients. */
export const SOAP_BODY_LIMIT = 64 * 1024;

export interface SoapRequest {
  version: Version;
  operation: string;
  header: Record<string, string>;
  /** Text of the operation's child elements by local name (lastReceived). */
  params: Record<string, string>;
}

// The few DOM members we read (xmlbuilder2's DOM; the project has no DOM lib types).
interface DomNode { nodeType: number; childNodes: ArrayLike<DomNode> }
interface DomElement extends DomNode {
  localName: string;
  namespaceURI: string | null;
  textContent: string | null;
  attributes: ArrayLike<{ localName: string; value: string }>;
}

const elements = (n: DomNode): DomElement[] => Array.from(n.childNodes).filter((c): c is DomElement => c.nodeType === 1);

export async function readBody(req: Request): Promise<string> {
  const declared = Number(req.headers.get('content-length') ?? 0);
  if (declared > SOAP_BODY_LIMIT) throw new SoapFault('TOO_LARGE', `At most ${SOAP_BODY_LIMIT} bytes.`);
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > SOAP_BODY_LIMIT) {
      await reader.cancel().catch(() => {});
      throw new SoapFault('TOO_LARGE', `At most ${SOAP_BODY_LIMIT} bytes.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function parseSoapRequest(text: string): SoapRequest {
  // Refused before any parser sees it: a DTD is how XXE and billion-laughs get in.
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new SoapFault('DTD_FORBIDDEN');
  let root: DomElement;
  try {
    root = create(text).root().node as unknown as DomElement;
  } catch {
    throw new SoapFault('MALFORMED_ENVELOPE');
  }
  if (root.localName !== 'Envelope' || root.namespaceURI !== SOAP_ENV) throw new SoapFault('MALFORMED_ENVELOPE');
  const parts = elements(root);
  const header = parts.find((e) => e.localName === 'Header' && e.namespaceURI === SOAP_ENV);
  const body = parts.find((e) => e.localName === 'Body' && e.namespaceURI === SOAP_ENV);
  const ops = body ? elements(body) : [];
  if (ops.length !== 1) throw new SoapFault('MALFORMED_ENVELOPE');
  const op = ops[0]!;
  const version = VERSIONS.find((v) => NAMESPACE[v] === op.namespaceURI);
  if (!version) throw new SoapFault('UNSUPPORTED_VERSION');
  const msg = header ? elements(header).find((e) => e.localName === 'MultiSpeakMsgHeader') : undefined;
  const attrs: Record<string, string> = {};
  for (const a of Array.from(msg?.attributes ?? [])) attrs[a.localName] = a.value;
  const params: Record<string, string> = {};
  for (const p of elements(op)) params[p.localName] = p.textContent ?? '';
  return { version, operation: op.localName, header: attrs, params };
}
