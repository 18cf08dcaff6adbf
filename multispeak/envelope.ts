// A SOAP 1.1 envelope around one MultiSpeak body element (document/literal wrapped, reference 1): every
// element qualified in the version's namespace under the prefix `m`, attributes unqualified.
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import { headerAttributes, type HeaderInput } from './header.js';
import { NAMESPACE, SOAP_ENV, type Version } from './versions.js';

/** Adds MultiSpeak elements under one parent; `undefined`/`null` text leaves the element out. */
export interface Writer {
  /** A child element with text, or nothing when the value is null/undefined. */
  leaf(name: string, value: string | number | boolean | null | undefined, attributes?: Record<string, string>): Writer;
  /** A child element whose children `fill` writes. */
  node(name: string, attributes: Record<string, string>, fill: (w: Writer) => void): Writer;
}

function writer(parent: XMLBuilder, ns: string): Writer {
  const self: Writer = {
    leaf(name, value, attributes = {}) {
      if (value === null || value === undefined) return self;
      parent.ele(ns, `m:${name}`, attributes).txt(String(value));
      return self;
    },
    node(name, attributes, fill) {
      fill(writer(parent.ele(ns, `m:${name}`, attributes), ns));
      return self;
    },
  };
  return self;
}

/**
 * @example
 *   envelope('4.1', { userId: 'fi', pwd: 's' }, 'ODEventNotification', (w) => w.node('ODEvents', {}, ...))
 */
export function envelope(version: Version, header: HeaderInput, operation: string, fill: (w: Writer) => void): string {
  const ns = NAMESPACE[version];
  const root = create({ version: '1.0', encoding: 'utf-8' })
    .ele(SOAP_ENV, 'soap:Envelope')
    .att('http://www.w3.org/2000/xmlns/', 'xmlns:m', ns);
  root.ele(SOAP_ENV, 'soap:Header').ele(ns, 'm:MultiSpeakMsgHeader', headerAttributes(version, header));
  fill(writer(root.ele(SOAP_ENV, 'soap:Body').ele(ns, `m:${operation}`), ns));
  return root.end({ prettyPrint: false });
}

/** Numbers as xs:float/xs:double text: finite only, no exponent surprises for small values. */
export const decimal = (v: number | null | undefined): string | null => (v === null || v === undefined || !Number.isFinite(v) ? null : String(v));
