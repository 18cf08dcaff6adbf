// Leaflet content from plain text. Leaflet puts a string given to a tooltip or popup in as HTML, and the
// texts shown on the map carry imported names (power lines, sections, devices) that an organisation's admin
// chose: a name like `<img src=x onerror=...>` must show as those characters, never run
// (docs/decisions.md#hostile-callers). eslint.config.js refuses a tooltip or popup given anything but a call,
// so a string cannot slip in later.
//
// A function, not one element: Leaflet moves a content element into whichever tooltip opens, so shapes that
// share a text each get their own.
export function textContent(text: string): () => HTMLElement {
  return () => {
    const el = document.createElement('span');
    el.textContent = text;
    return el;
  };
}
