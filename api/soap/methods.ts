// PingURL and GetMethods (docs/multispeak.md#what-our-endpoint-answers): the calls an OMS adapter makes before it
// syncs (Oracle NMS's MultiSpeak adapter does). PingURL answers an empty ArrayOfErrorObject (no errorObject
// means all is well); GetMethods lists SERVED_OPERATIONS, the very list the dispatcher serves.
import { headerAttributes } from '../../multispeak/header.js';
import { NAMESPACE, SOAP_ENV, type Version } from '../../multispeak/versions.js';
import { SERVED_OPERATIONS } from './operations.js';
import { escapeAttr } from './wsdl.js';

function answer(version: Version, operation: string, result: string, now: Date): string {
  const attrs = headerAttributes(version, { timeStamp: now.toISOString() });
  const header = Object.entries(attrs).map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('');
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP_ENV}" xmlns:m="${NAMESPACE[version]}">`
    + `<soap:Header><m:MultiSpeakMsgHeader${header} /></soap:Header>`
    + `<soap:Body><m:${operation}Response>${result}</m:${operation}Response></soap:Body></soap:Envelope>`;
}

export function pingUrlAnswer(version: Version, now: Date): string {
  return answer(version, 'PingURL', '<m:PingURLResult />', now);
}

export function getMethodsAnswer(version: Version, now: Date): string {
  const list = SERVED_OPERATIONS.map((op) => `<m:string>${op}</m:string>`).join('');
  return answer(version, 'GetMethods', `<m:GetMethodsResult>${list}</m:GetMethodsResult>`, now);
}
