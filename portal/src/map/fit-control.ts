// A Leaflet button under the zoom control that shows every device again.
import L from 'leaflet';

export function fitControl(onFit: () => void): L.Control {
  const control = new L.Control({ position: 'topleft' });
  control.onAdd = () => {
    const bar = L.DomUtil.create('div', 'leaflet-bar');
    const button = L.DomUtil.create('a', 'fit-all', bar);
    button.href = '#';
    button.title = 'Fit all devices';
    button.setAttribute('role', 'button');
    button.setAttribute('aria-label', 'Fit all devices');
    button.textContent = '⤢';
    L.DomEvent.disableClickPropagation(bar);
    L.DomEvent.on(button, 'click', (e) => { L.DomEvent.preventDefault(e); onFit(); });
    return bar;
  };
  return control;
}
