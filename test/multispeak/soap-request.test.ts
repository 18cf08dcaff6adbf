// Reading SOAP requests (api/soap/request.ts) and the OMS's answers (multispeak/delivery/answer.ts):
// every refusal is a typed fault or delivery error, never an exception of the parser.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SoapFault, faultXml } from '../../api/soap/fault.js';
import { parseSoapRequest } from '../../api/soap/request.js';
import { checkAnswer } from '../../multispeak/delivery/answer.js';
import { DeliveryError } from '../../multispeak/delivery/errors.js';

const test = suite('soap request and answer');
const ENV = (inner: string, ns = 'http://www.multispeak.org/Version_4.1_Release') =>
  `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="${ns}">${inner}</s:Envelope>`;

function faultOf(text: string): string {
  try {
    parseSoapRequest(text);
  } catch (err) {
    assert.instance(err, SoapFault);
    return (err as SoapFault).code;
  }
  return 'none';
}

test('a request: version from the namespace, header attributes, parameters', () => {
  const r = parseSoapRequest(ENV('<s:Header><m:MultiSpeakMsgHeader UserID="a@b" Pwd="p&amp;q"/></s:Header><s:Body><m:GetAllSCADAPoints><m:lastReceived>861</m:lastReceived></m:GetAllSCADAPoints></s:Body>'));
  assert.equal(r, { version: '4.1', operation: 'GetAllSCADAPoints', header: { UserID: 'a@b', Pwd: 'p&q' }, params: { lastReceived: '861' } });
  assert.is(parseSoapRequest(ENV('<s:Body><m:GetAllSCADAPoints/></s:Body>', 'http://www.multispeak.org/Version_3.0')).version, '3.0');
});

test('refusals are faults with a code', () => {
  assert.is(faultOf('<!DOCTYPE x [<!ENTITY e "e">]><x/>'), 'DTD_FORBIDDEN');
  assert.is(faultOf('<x/>'), 'MALFORMED_ENVELOPE');
  assert.is(faultOf(''), 'MALFORMED_ENVELOPE');
  assert.is(faultOf(ENV('<s:Body/>')), 'MALFORMED_ENVELOPE');
  assert.is(faultOf(ENV('<s:Body><m:A/><m:B/></s:Body>')), 'MALFORMED_ENVELOPE');
  assert.is(faultOf(ENV('<s:Body><m:A/></s:Body>', 'urn:other')), 'UNSUPPORTED_VERSION');
});

test('a fault escapes its text and names its code', () => {
  const xml = faultXml(new SoapFault('UNKNOWN_OPERATION', 'Got <x>.'));
  assert.ok(xml.includes('<faultcode>soap:Client</faultcode>'));
  assert.ok(xml.includes('Got &lt;x&gt;.'));
  assert.ok(xml.includes('<code>UNKNOWN_OPERATION</code>'));
});

const answerCode = (status: number, body: string): string => {
  try {
    checkAnswer({ status, body });
    return 'ok';
  } catch (err) {
    assert.instance(err, DeliveryError);
    return (err as DeliveryError).code;
  }
};

test('OMS answers: empty results are success; a Fault, an errorObject or a bad status are failures', () => {
  assert.is(answerCode(200, '<Envelope><Body><m:ODEventNotificationResponse/></Body></Envelope>'), 'ok');
  assert.is(answerCode(200, '<Envelope><Body><R><ODEventNotificationResult/></R></Body></Envelope>'), 'ok');
  assert.is(answerCode(200, '<R><Result><ArrayOfErrorObject/></Result></R>'), 'ok');
  assert.is(answerCode(200, ''), 'ok');
  assert.is(answerCode(500, '<soap:Fault><faultstring>down</faultstring></soap:Fault>'), 'SOAP_FAULT');
  assert.is(answerCode(200, '<R><m:errorObject objectID="1" errorString="unknown point"/></R>'), 'ERROR_OBJECT');
  assert.is(answerCode(503, 'busy'), 'HTTP_STATUS');
});

test.run();
