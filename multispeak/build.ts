// One entry point for the delivery worker and the tests: the envelope of an operation in a version.
import * as v30 from './3.0/index.js';
import * as v41 from './4.1/index.js';
import { envelope } from './envelope.js';
import type { Notification } from './notification.js';
import type { Operation, OperationBody } from './operations.js';
import { soapAction, type Version } from './versions.js';

const BODIES: Record<Version, Record<Operation, OperationBody>> = { '4.1': v41.BODIES, '3.0': v30.BODIES };

export interface BuiltRequest {
  xml: string;
  /** The quoted SOAPAction header value. */
  soapAction: string;
}

/**
 * @example
 *   const { xml, soapAction } = buildRequest('4.1', 'ODEventNotification', notification, { userId, password }, now);
 */
export function buildRequest(
  version: Version, operation: Operation, n: Notification,
  credentials: { userId: string; password: string } | null, now: Date, company?: string,
): BuiltRequest {
  const body = BODIES[version][operation];
  const header = { userId: credentials?.userId, pwd: credentials?.password, messageId: n.messageId, timeStamp: now.toISOString(), company };
  return { xml: envelope(version, header, operation, (w) => body.write(w, n)), soapAction: soapAction(version, operation) };
}
