import { stateColour } from '../fault-state';

/** A fault string exactly as the API sent it, with its colour as a swatch (never colour alone). */
export function FaultBadge({ value }: { value: string | null }) {
  if (value === null) return <span class="muted">—</span>;
  return <span class="badge"><span class="swatch" style={{ background: stateColour(value) }} aria-hidden="true" />{value}</span>;
}
