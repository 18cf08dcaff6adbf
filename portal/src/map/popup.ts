// A device's popup on the map: the API's fields as text (never HTML), and a link to its page.
import { COMM_LOST, powerText } from '../fault-state';
import type { MapDevice } from '../api/types';
import { navigate } from '../router';

export interface Shown extends MapDevice { state: string; stale: boolean }

export function popupHtml(d: Shown): HTMLElement {
  const el = document.createElement('div');
  el.className = 'popup';
  const row = (k: string, v: string | null) => {
    const dt = document.createElement('dt'); dt.textContent = k;
    const dd = document.createElement('dd'); dd.textContent = v ?? '—';
    return [dt, dd];
  };
  const h = document.createElement('h3'); h.textContent = d.Real_Name ?? d.IMEINumber;
  const dl = document.createElement('dl');
  dl.append(
    ...row('IMEI', d.IMEINumber), ...row('State', d.ActualOngoingFault), ...(d.state === COMM_LOST || d.stale ? row('Communication', d.stale ? 'lost (no recent check-in)' : 'lost') : []),
    ...row('Last check-in (your time)', d.LastCheckInTime), ...row('Battery / line', powerText(d.BatteryOrLine)),
    ...row('Power line', d.PowerLineName ?? d.PowerLineID),
  );
  const a = document.createElement('a');
  a.href = `/devices/${encodeURIComponent(d.IMEINumber)}`;
  a.textContent = 'Open device page';
  a.addEventListener('click', (e) => { e.preventDefault(); navigate(a.pathname); });
  el.append(h, dl, a);
  return el;
}
