// The WSDL 1.1 (document/literal, SOAP 1.1) of our SCADA_Server side: SERVED_OPERATIONS (PingURL, GetMethods,
// GetAllSCADAPoints). Its types are
// a subset of the official MultiSpeak types (4.1.6 SCADA_Server; 3.0 AC): the same names, the same element
// order and types, with optional elements we never send left out, so a client generated from the official
// WSDL reads our answers and one generated from ours reads nothing it does not know.
// test/integration/multispeak/soap-server.test.ts checks the subset against the official documents' facts
// (test/multispeak/wsdl/).
import { NAMESPACE, type Version } from '../../multispeak/versions.js';
import { SERVED_OPERATIONS } from './operations.js';

const enumeration = (name: string, values: readonly string[]) =>
  `<s:simpleType name="${name}"><s:restriction base="s:string">${values.map((v) => `<s:enumeration value="${v}" />`).join('')}</s:restriction></s:simpleType>`;

const attributes = (list: [string, string][]) => list.map(([n, t]) => `<s:attribute name="${n}" type="${t}" />`).join('');

const HEADER_41: [string, string][] = [
  ['MajorVersion', 's:integer'], ['MinorVersion', 's:integer'], ['Build', 's:integer'], ['Branch', 's:integer'],
];
const HEADER_COMMON: [string, string][] = [
  ['UserID', 's:string'], ['Pwd', 's:string'], ['AppName', 's:string'], ['AppVersion', 's:string'], ['Company', 's:string'],
];
const HEADER_TAIL: [string, string][] = [
  ['SessionID', 's:string'], ['PreviousSessionID', 's:string'], ['ObjectsRemaining', 's:integer'], ['LastSent', 's:string'],
  ['RegistrationID', 's:string'], ['MessageID', 's:string'], ['TimeStamp', 's:dateTime'],
];

function header(version: Version): string {
  const attrs = version === '4.1'
    ? `${attributes(HEADER_41)}<s:attribute name="BuildString" type="tns:BuildDescriptor" use="required" />${attributes(HEADER_COMMON)}${attributes(HEADER_TAIL)}`
    : `<s:attribute name="Version" type="s:string" />${attributes(HEADER_COMMON)}${attributes(HEADER_TAIL)}<s:attribute name="BuildString" type="s:string" />`;
  const build = version === '4.1' ? enumeration('BuildDescriptor', ['PR', 'RC', 'Branch', 'Release', 'Other', 'Unknown']) : '';
  return `<s:element name="MultiSpeakMsgHeader" type="tns:MultiSpeakMsgHeader" /><s:complexType name="MultiSpeakMsgHeader">${attrs}<s:anyAttribute /></s:complexType>${build}`;
}

const el = (name: string, type: string, extra = '') => `<s:element minOccurs="0" maxOccurs="1" name="${name}" type="${type}"${extra} />`;
const extension = (name: string, base: string, elements: string, abstract = false) =>
  `<s:complexType name="${name}"${abstract ? ' abstract="true"' : ''}><s:complexContent mixed="false"><s:extension base="${base}"><s:sequence>${elements}</s:sequence></s:extension></s:complexContent></s:complexType>`;

function types(version: Version): string {
  const v41 = version === '4.1';
  const mspObject = `<s:complexType name="mspObject" abstract="true"><s:sequence>${el('comments', 's:string')}${v41 ? el('objectName', 's:string') : ''}</s:sequence>`
    + '<s:attribute name="objectID" type="s:string" /><s:attribute default="Change" name="verb" type="tns:action" />'
    + '<s:attribute name="errorString" type="s:string" /><s:attribute name="replaceID" type="s:string" /><s:attribute name="utility" type="s:string" />'
    + '<s:anyAttribute /></s:complexType>';
  const gps = v41
    ? '<s:complexType name="gpsPoint"><s:sequence><s:element minOccurs="1" maxOccurs="1" name="latitude" type="s:double" />'
      + '<s:element minOccurs="1" maxOccurs="1" name="longitude" type="s:double" />' + `${el('altitude', 's:double')}</s:sequence></s:complexType>`
    : '';
  const point = extension('mspPointObject', 'tns:mspObject', `${v41 ? el('gpsPoint', 'tns:gpsPoint') : ''}${el('gridLocation', 's:string')}${el('rotation', 's:float')}${el('facilityID', 's:string')}`, true);
  const scadaPoint = extension('scadaPoint', 'tns:mspPointObject', `${el('description', 's:string')}${el('scadaPointType', 'tns:scadaPointType')}${v41 ? '' : el('GISFeatureID', 's:string')}${el('GISFeatureType', 's:string')}`);
  // errorObject: 4.1 makes it a string with attributes, 3.0 attributes only; GetMethods' list is ArrayOfString in
  // 4.1 and ArrayOfString2 in 3.0 (3.0's ArrayOfString is a list of sealNumber).
  const errorAttrs = attributes([['objectID', 's:string'], ['errorString', 's:string'], ['nounType', 's:string'], ['eventTime', 's:dateTime']]);
  const errorObject = v41
    ? `<s:complexType name="errorObject"><s:simpleContent><s:extension base="s:string">${errorAttrs}</s:extension></s:simpleContent></s:complexType>`
    : `<s:complexType name="errorObject">${errorAttrs}</s:complexType>`;
  const strings = v41 ? 'ArrayOfString' : 'ArrayOfString2';
  return [
    '<s:element name="PingURL"><s:complexType /></s:element>',
    '<s:element name="PingURLResponse"><s:complexType><s:sequence>', el('PingURLResult', 'tns:ArrayOfErrorObject'), '</s:sequence></s:complexType></s:element>',
    '<s:complexType name="ArrayOfErrorObject"><s:sequence><s:element minOccurs="0" maxOccurs="unbounded" name="errorObject" nillable="true" type="tns:errorObject" /></s:sequence></s:complexType>',
    errorObject,
    '<s:element name="GetMethods"><s:complexType /></s:element>',
    '<s:element name="GetMethodsResponse"><s:complexType><s:sequence>', el('GetMethodsResult', `tns:${strings}`), '</s:sequence></s:complexType></s:element>',
    `<s:complexType name="${strings}"><s:sequence><s:element minOccurs="0" maxOccurs="unbounded" name="string" nillable="true" type="s:string" /></s:sequence></s:complexType>`,
    '<s:element name="GetAllSCADAPoints"><s:complexType><s:sequence>', el('lastReceived', 's:string'), '</s:sequence></s:complexType></s:element>',
    '<s:element name="GetAllSCADAPointsResponse"><s:complexType><s:sequence>', el('GetAllSCADAPointsResult', 'tns:ArrayOfScadaPoint1'), '</s:sequence></s:complexType></s:element>',
    '<s:complexType name="ArrayOfScadaPoint1"><s:sequence><s:element minOccurs="0" maxOccurs="unbounded" name="scadaPoint" nillable="true" type="tns:scadaPoint" /></s:sequence></s:complexType>',
    scadaPoint, point, gps, mspObject,
    enumeration('action', ['New', 'Change', 'Delete', 'Replace', 'Link', 'Unlink']),
    enumeration('scadaPointType', v41 ? ['status', 'analog', 'accumulator'] : ['status', 'analog']),
    header(version),
  ].join('');
}

/**
 * @example
 *   wsdlDocument('4.1', 'https://faultline.example/soap')
 */
export function wsdlDocument(version: Version, address: string): string {
  const ns = NAMESPACE[version];
  const headerUse = (op: string) => `<soap:header message="tns:${op}MultiSpeakMsgHeader" part="MultiSpeakMsgHeader" use="literal" />`;
  const messages = SERVED_OPERATIONS.map((op) => `<wsdl:message name="${op}SoapIn"><wsdl:part name="parameters" element="tns:${op}" /></wsdl:message>
<wsdl:message name="${op}SoapOut"><wsdl:part name="parameters" element="tns:${op}Response" /></wsdl:message>
<wsdl:message name="${op}MultiSpeakMsgHeader"><wsdl:part name="MultiSpeakMsgHeader" element="tns:MultiSpeakMsgHeader" /></wsdl:message>`).join('\n');
  const portOps = SERVED_OPERATIONS.map((op) => `<wsdl:operation name="${op}"><wsdl:input message="tns:${op}SoapIn" /><wsdl:output message="tns:${op}SoapOut" /></wsdl:operation>`).join('');
  const bindingOps = SERVED_OPERATIONS.map((op) => `<wsdl:operation name="${op}"><soap:operation soapAction="${ns}/${op}" style="document" />
<wsdl:input><soap:body use="literal" />${headerUse(op)}</wsdl:input><wsdl:output><soap:body use="literal" />${headerUse(op)}</wsdl:output></wsdl:operation>`).join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>
<wsdl:definitions xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:tns="${ns}" targetNamespace="${ns}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">
<wsdl:documentation>faultline SCADA_Server (MultiSpeak ${version}): PingURL, GetMethods and GetAllSCADAPoints (one point per device; objectID is the IMEI used by every notification).</wsdl:documentation>
<wsdl:types><s:schema elementFormDefault="qualified" targetNamespace="${ns}">${types(version)}</s:schema></wsdl:types>
${messages}
<wsdl:portType name="SCADA_ServerSoap">${portOps}</wsdl:portType>
<wsdl:binding name="SCADA_ServerSoap" type="tns:SCADA_ServerSoap"><soap:binding transport="http://schemas.xmlsoap.org/soap/http" />
${bindingOps}</wsdl:binding>
<wsdl:service name="SCADA_Server"><wsdl:port name="SCADA_ServerSoap" binding="tns:SCADA_ServerSoap"><soap:address location="${escapeAttr(address)}" /></wsdl:port></wsdl:service>
</wsdl:definitions>
`;
}

export function escapeAttr(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
