// One SOAP 1.1 POST (outbox/http-post.ts) with the integration's own CA bundle / client certificate for a
// DMZ reverse proxy (channel D). Every failure is a DeliveryError whose message names the kind of failure,
// never the request.
import { HttpSendError, postHttp, type PostResult, type TlsFiles } from '../../outbox/http-post.js';
import { DeliveryError } from './errors.js';

export type { PostResult };

export interface PostOptions {
  timeoutMs: number;
  connectTimeoutMs: number;
  tls: TlsFiles;
}

export async function postSoap(url: string, xml: string, soapAction: string, options: PostOptions): Promise<PostResult> {
  try {
    return await postHttp(url, xml, { 'content-type': 'text/xml; charset=utf-8', soapaction: soapAction }, options);
  } catch (err) {
    if (err instanceof HttpSendError) throw new DeliveryError(err.code === 'TARGET_REFUSED' ? 'CONNECT_FAILED' : err.code, err.message);
    throw err;
  }
}
