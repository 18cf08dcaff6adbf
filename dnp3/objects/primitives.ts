// Octet-level helpers shared by the interpreted codec (codec.ts) and the generated one.

export const TWO_32 = 2 ** 32;

export function writeT48(view: DataView, at: number, ms: number): void {
  const t = Math.max(0, Math.min(Math.trunc(ms), 2 ** 48 - 1));
  view.setUint32(at, t % TWO_32, true);
  view.setUint16(at + 4, Math.floor(t / TWO_32), true);
}

export function readT48(view: DataView, at: number): number {
  return view.getUint32(at, true) + view.getUint16(at + 4, true) * TWO_32;
}

/** Integers saturate and set OVER_RANGE (opendnp3's rule); fractions are truncated. */
export function saturate(value: number, min: number, max: number): { v: number; over: boolean } {
  if (!Number.isFinite(value)) return { v: value > 0 ? max : value < 0 ? min : 0, over: true };
  const t = Math.trunc(value);
  if (t > max) return { v: max, over: true };
  if (t < min) return { v: min, over: true };
  return { v: t, over: false };
}

