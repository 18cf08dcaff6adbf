// Notifications as the notify stage writes them (payload shape of multispeak/outbox-payload.ts), for tests.
import type { Notification } from '../../multispeak/notification.js';
import { notificationFromPayload } from '../../multispeak/outbox-payload.js';

export const faultPayload = {
  IMEINumber: '861000000000100', Real_Name: 'North F7 Pole 41 Phase B', CurrentLat: 41.81, CurrentLong: -87.69, date: '2026-11-20T08:30:00.000Z',
  ActualOngoingFault: 4, ActualOngoingFaultText: 'Permanent', previousActualOngoingFault: 0,
  AverageCurrent1m: 0.4, BatteryMCU: 3.61, BatteryOrLine: 0,
  events: [{ EventID: 12, EventType: 'PFault', EventTimestamp: '2026-11-20T08:29:41.000Z', PrefaultCurrent: 120, FaultCurrent: 900 }],
};

export const clearPayload = { ...faultPayload, date: '2026-11-20T09:30:00.000Z', ActualOngoingFault: 0, ActualOngoingFaultText: 'None', previousActualOngoingFault: 4, events: [] };

export function fault(over: Partial<Notification> = {}): Notification {
  return { ...notificationFromPayload('faultline-north-oms-42', 'status', faultPayload), ...over };
}
