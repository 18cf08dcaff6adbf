// When an OMS outage ends (docs/decisions.md#multispeak-resync): an integration is "down" after a delivery
// failed for a reason that says the OMS or the way to it is away, and "back" at the next delivery that
// succeeds. Pure state per worker process; the worker resyncs the integration when it comes back.
import type { DeliveryErrorCode } from './errors.js';

/** Failures that say the OMS is away; an errorObject, a bad payload or our own configuration do not. */
export const OUTAGE_CODES: ReadonlySet<DeliveryErrorCode> = new Set(['TIMEOUT', 'CONNECT_FAILED', 'TLS_FAILED', 'HTTP_STATUS', 'SOAP_FAULT']);

export class OutageTracker {
  private readonly down = new Set<string>();

  failed(integration: string, code: DeliveryErrorCode): void {
    if (OUTAGE_CODES.has(code)) this.down.add(integration);
  }

  /** True once per outage: the first success after outage failures. */
  delivered(integration: string): boolean {
    return this.down.delete(integration);
  }
}
