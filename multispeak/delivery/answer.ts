// What the OMS's answer means (docs/multispeak.md): 2xx without errorObject is success, whatever
// shape the empty result takes; a SOAP Fault or an errorObject fails the item; anything else is a failure.
import { DeliveryError } from './errors.js';
import type { PostResult } from './http-post.js';

const FAULT = /<(?:[\w.-]+:)?Fault[\s>]/;
const FAULT_STRING = /<faultstring[^>]*>([\s\S]*?)<\/faultstring>/;
const ERROR_OBJECT = /<(?:[\w.-]+:)?errorObject\b([^>]*)/;
const ERROR_STRING = /errorString="([^"]*)"/;

const short = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 300);

export function checkAnswer({ status, body }: PostResult): void {
  if (FAULT.test(body)) throw new DeliveryError('SOAP_FAULT', `HTTP ${status}, SOAP Fault: ${short(FAULT_STRING.exec(body)?.[1] ?? '(no faultstring)')}`);
  if (status < 200 || status >= 300) throw new DeliveryError('HTTP_STATUS', `HTTP ${status}`);
  const error = ERROR_OBJECT.exec(body);
  if (error) throw new DeliveryError('ERROR_OBJECT', `errorObject: ${short(ERROR_STRING.exec(error[1] ?? '')?.[1] ?? '(no errorString)')}`);
}
