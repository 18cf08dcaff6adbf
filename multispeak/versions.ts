// MultiSpeak versions faultline speaks, their namespaces and SOAPAction rule (docs/multispeak.md).
export const SOAP_ENV = 'http://schemas.xmlsoap.org/soap/envelope/';
export const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

export const VERSIONS = ['4.1', '3.0'] as const;
export type Version = (typeof VERSIONS)[number];

export const NAMESPACE: Record<Version, string> = {
  '4.1': 'http://www.multispeak.org/Version_4.1_Release',
  '3.0': 'http://www.multispeak.org/Version_3.0',
};

export function isVersion(value: unknown): value is Version {
  return typeof value === 'string' && (VERSIONS as readonly string[]).includes(value);
}

/** SOAPAction = namespace + "/" + operation, quoted as ASMX servers route on it. */
export function soapAction(version: Version, operation: string): string {
  return `"${NAMESPACE[version]}/${operation}"`;
}
