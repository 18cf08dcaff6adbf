// MultiSpeak 3.0 (AC build) payload objects (docs/multispeak.md): no objectName, analog
// `value` + `unit`, `outageDetect*` names, assessment `created`, location as `gpsLocation`.
import { decimal, type Writer } from '../envelope.js';
import { commentOf, latestEvent, statusOf, type Notification } from '../notification.js';

const base = (n: Notification) => ({ objectID: n.IMEINumber, verb: 'Change' });

function extensions(w: Writer, n: Notification): void {
  const items: [string, string | null][] = [
    ['Real_Name', n.name],
    ['ActualOngoingFault', String(n.fault)],
    ['AverageCurrent1m', decimal(n.averageCurrent1m)],
    ['BatteryMCU', decimal(n.batteryMCU)],
    ['BatteryOrLine', n.batteryOrLine === null ? null : n.batteryOrLine === 0 ? 'Line' : 'Battery'],
  ];
  w.node('extensionsList', {}, (l) => {
    for (const [name, value] of items) if (value !== null) l.node('extensionsItem', {}, (i) => i.leaf('extName', name).leaf('extValue', value));
  });
}

export function scadaStatus(w: Writer, n: Notification): void {
  w.node('scadaStatus', base(n), (s) => {
    s.leaf('comments', commentOf(n, n.faultText));
    s.leaf('quality', 'Measured').leaf('status', statusOf(n)).leaf('timeStamp', n.date);
  });
}

export function scadaAnalog(w: Writer, n: Notification): void {
  w.node('scadaAnalog', base(n), (a) => {
    a.leaf('comments', commentOf(n, n.faultText));
    extensions(a, n);
    a.leaf('value', n.fault).leaf('quality', 'Measured').leaf('timeStamp', n.date);
  });
}

export function outageDetectionEvent(w: Writer, n: Notification): void {
  const event = latestEvent(n);
  w.node('outageDetectionEvent', base(n), (e) => {
    e.leaf('comments', commentOf(n, n.faultText));
    e.leaf('eventTime', event ? new Date(event.EventTimestamp).toISOString() : n.date);
    e.leaf('outageEventType', n.fault > 0 ? 'Outage' : 'Restoration');
    e.leaf('outageDetectDeviceID', n.IMEINumber).leaf('outageDetectDeviceType', 'Other');
    e.leaf('problemCode', event?.EventType ?? n.faultText);
  });
}

export function assessmentLocation(w: Writer, n: Notification): void {
  const event = latestEvent(n);
  w.node('assessmentLocation', base(n), (l) => {
    l.leaf('comments', commentOf(n, n.name ?? n.faultText));
    l.node('assessmentList', {}, (list) => list.node('assessment', { objectID: `${n.IMEINumber}-${n.date}` }, (a) => {
      a.leaf('comments', commentOf(n, event?.EventType ?? n.faultText));
      a.leaf('category', n.fault > 0 ? 'Fault' : 'Normal').leaf('created', n.date);
      a.leaf('elementName', n.name).leaf('elementType', 'FaultIndicator').leaf('elementID', n.IMEINumber);
    }));
    if (typeof n.lat === 'number' && typeof n.long === 'number') l.node('gpsLocation', {}, (g) => g.leaf('latitude', n.lat).leaf('longitude', n.long));
  });
}
