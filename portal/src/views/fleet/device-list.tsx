// The fleet device list (GET /api/fleet/devices): a row per device with each card's measure, sorted and paged
// by the server. A device's name opens its strip of days below (?device=).
import { Link } from '../../components/link';
import type { Column } from '../../components/table';
import { isoToSecond } from '../../time';
import type { FleetDevice } from './types';
import { BATTERY_TEXT, count, percent, SIGNAL_TEXT, SILENCE_TEXT, utcDay, withUnit } from './words';

function rateCell(rate: number | null, received: number | null, expected: number | null) {
  if (rate === null) return <span class="muted">—</span>;
  return <span title={`${count(received ?? 0)} of ${count(expected ?? 0)} expected check-ins`}>{percent(rate)}</span>;
}

function batteryCell(d: FleetDevice) {
  if (d.batteryStatus === null) return <span class="muted">—</span>;
  if (d.batteryDaysLeft === null) return BATTERY_TEXT[d.batteryStatus];
  return <span title={`ends around ${utcDay(d.batteryEndDay)} (UTC)`}>{count(d.batteryDaysLeft)} d · {BATTERY_TEXT[d.batteryStatus]}</span>;
}

export function fleetColumns(open: (imei: string) => string, timeZone: string): Column<FleetDevice>[] {
  return [
    {
      key: 'IMEINumber', label: 'Device (IMEI)', sortKey: 'IMEINumber', wrap: true,
      render: (d) => <><Link href={open(d.IMEINumber)}>{d.Real_Name ?? d.IMEINumber}</Link><span class="value-ref">{d.IMEINumber}</span></>,
    },
    { key: 'PowerLineID', label: 'Power line' },
    { key: 'firmware', label: 'Model · firmware', sortKey: 'firmware', render: (d) => (d.model || d.firmware ? `${d.model ?? '—'} · ${d.firmware ?? '—'}` : <span class="muted">—</span>) },
    { key: 'onlineRate7d', label: 'Online 7 d', sortKey: 'onlineRate7d', numeric: true, render: (d) => rateCell(d.onlineRate7d, d.received7d, d.expected7d) },
    { key: 'onlineRate30d', label: 'Online 30 d', sortKey: 'onlineRate30d', numeric: true, render: (d) => rateCell(d.onlineRate30d, d.received30d, d.expected30d) },
    { key: 'rssiMedian7d', label: 'RSSI 7 d', sortKey: 'rssiMedian7d', numeric: true, render: (d) => withUnit(d.rssiMedian7d, 'dBm', 1) },
    { key: 'rssiSlope30d', label: 'RSSI trend', sortKey: 'rssiSlope30d', numeric: true, render: (d) => (d.rssiSlope30d === null ? '—' : `${d.rssiSlope30d > 0 ? '+' : ''}${d.rssiSlope30d.toFixed(2)} dB/d`) },
    { key: 'signal', label: 'Signal', render: (d) => (d.signal ? SIGNAL_TEXT[d.signal] : <span class="muted">—</span>) },
    { key: 'batteryDaysLeft', label: 'Battery days left', sortKey: 'batteryDaysLeft', render: batteryCell },
    { key: 'silenceLabel', label: 'Silent because', sortKey: 'silenceLabel', wrap: true, render: (d) => (d.silenceLabel ? SILENCE_TEXT[d.silenceLabel] : <span class="muted">not silent</span>) },
    { key: 'driftSettings', label: 'Drifts', wrap: true, render: (d) => (d.driftSettings.length ? d.driftSettings.join(', ') : <span class="muted">—</span>) },
    { key: 'LastCheckInTime', label: 'Last check-in', sortKey: 'LastCheckInTime', wrap: true, render: (d) => isoToSecond(d.LastCheckInTime, timeZone) },
  ];
}
