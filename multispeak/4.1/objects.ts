// MultiSpeak 4.1 payload objects built from a notification (docs/multispeak.md). Children in
// schema order: mspObject's (comments, extensionsList, objectName), then the derived type's.
import { decimal, type Writer } from '../envelope.js';
import { commentOf, latestEvent, statusOf, type Notification } from '../notification.js';

const base = (n: Notification) => ({ objectID: n.IMEINumber, verb: 'Change' });

/** The readings a check-in carries besides the main value, as name/value extensions. */
function extensions(w: Writer, n: Notification): void {
  const items: [string, string | null, string][] = [
    ['ActualOngoingFault', String(n.fault), 'int'],
    ['ActualOngoingFaultText', n.faultText, 'string'],
    ['AverageCurrent1m', decimal(n.averageCurrent1m), 'float'],
    ['BatteryMCU', decimal(n.batteryMCU), 'float'],
    ['BatteryOrLine', n.batteryOrLine === null ? null : n.batteryOrLine === 0 ? 'Line' : 'Battery', 'string'],
  ];
  w.node('extensionsList', {}, (l) => {
    for (const [name, value, type] of items) {
      if (value !== null) l.node('extensionsItem', {}, (i) => i.leaf('extName', name).leaf('extValue', value).leaf('extType', type));
    }
  });
}

export function scadaStatus(w: Writer, n: Notification): void {
  w.node('scadaStatus', base(n), (s) => {
    s.leaf('comments', commentOf(n, n.faultText)).leaf('objectName', n.name);
    s.leaf('quality', 'Measured').leaf('status', statusOf(n)).leaf('timeStamp', n.date);
  });
}

/** One analog point per device: the fault code, with the other readings as extensions. */
export function scadaAnalog(w: Writer, n: Notification): void {
  w.node('scadaAnalog', base(n), (a) => {
    a.leaf('comments', commentOf(n, n.faultText));
    extensions(a, n);
    a.leaf('objectName', n.name);
    a.leaf('value', n.fault);
    a.leaf('quality', 'Measured').leaf('timeStamp', n.date);
  });
}

export function outageDetectionEvent(w: Writer, n: Notification): void {
  const event = latestEvent(n);
  w.node('outageDetectionEvent', base(n), (e) => {
    e.leaf('comments', commentOf(n, n.faultText)).leaf('objectName', n.name);
    e.leaf('eventTime', event ? new Date(event.EventTimestamp).toISOString() : n.date);
    e.leaf('outageEventType', n.fault > 0 ? 'Outage' : 'Restoration');
    e.leaf('outageDetectionDeviceID', n.IMEINumber).leaf('outageDetectionDeviceType', 'Other');
    e.leaf('problemCode', event?.EventType ?? n.faultText);
  });
}

export function assessmentLocation(w: Writer, n: Notification): void {
  const event = latestEvent(n);
  w.node('assessmentLocation', base(n), (l) => {
    l.leaf('comments', commentOf(n, n.faultText)).leaf('objectName', n.name);
    if (typeof n.lat === 'number' && typeof n.long === 'number') l.node('gpsPoint', {}, (g) => g.leaf('latitude', n.lat).leaf('longitude', n.long));
    l.node('assessmentList', {}, (list) => list.node('assessment', { objectID: `${n.IMEINumber}-${n.date}` }, (a) => {
      a.leaf('comments', commentOf(n, event?.EventType ?? n.faultText));
      a.leaf('category', n.fault > 0 ? 'Fault' : 'Normal').leaf('createdOn', n.date);
      a.leaf('elementID', n.IMEINumber).leaf('elementName', n.name).leaf('elementType', 'FaultIndicator');
    }));
  });
}
