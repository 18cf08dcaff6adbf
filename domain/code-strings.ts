// State and FaultType as strings (spec 3.1 last paragraph; docs/decisions.md#codes-to-strings). The lists
// live in a versioned config file (`schemas/config/code-strings.json`) so a utility can rename a state
// without a release; this module only validates the file's content and looks codes up.
import { unknownCodeText } from './ongoing-fault-codes.js';

export interface CodeStrings {
  version: number;
  State: ReadonlyMap<number, string>;
  FaultType: ReadonlyMap<number, string>;
}

export type CodeStringsResult = { ok: true; value: CodeStrings } | { ok: false; reason: string };

function table(name: string, value: unknown): Map<number, string> | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${name} must be an object of code -> string`;
  const out = new Map<number, string>();
  for (const [key, text] of Object.entries(value)) {
    if (!/^(0|-?[1-9]\d*)$/.test(key)) return `${name}: key ${JSON.stringify(key)} is not an integer code`;
    if (typeof text !== 'string' || text.trim() === '') return `${name}.${key} must be a non-empty string`;
    out.set(Number(key), text);
  }
  return out;
}

/** Validates the parsed content of a code-strings file. */
export function parseCodeStrings(json: unknown): CodeStringsResult {
  if (typeof json !== 'object' || json === null) return { ok: false, reason: 'the file must hold a JSON object' };
  const o = json as Record<string, unknown>;
  if (!Number.isInteger(o.version) || (o.version as number) < 1) return { ok: false, reason: 'version must be a positive integer' };
  const state = table('State', o.State);
  if (typeof state === 'string') return { ok: false, reason: state };
  const faultType = table('FaultType', o.FaultType);
  if (typeof faultType === 'string') return { ok: false, reason: faultType };
  return { ok: true, value: { version: o.version as number, State: state, FaultType: faultType } };
}

/** The string of `code` in `map`; `Unknown (<code>)` for codes outside it; null stays null. */
export function codeText(map: ReadonlyMap<number, string>, code: number | null): string | null {
  if (code === null) return null;
  return map.get(code) ?? unknownCodeText(code);
}
