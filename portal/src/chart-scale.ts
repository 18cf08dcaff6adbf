// The current axis of the device page's charts: from 0 A to a little above the highest value, so a low load
// never looks like a high one (an axis fitted to the data would stretch 2 A to 3 A over the whole height).
// Pure, so it is tested without a browser.
export function currentAxisRange(max: number | null): [number, number] {
  return [0, max !== null && max > 0 ? max * 1.1 : 1];
}
