// Model replacement (spec 3.3, 6.1 step 2): a device-reported model that is a key of the replacement map is
// stored as the mapped standard name; any other model is kept. The map is a versioned config file
// (schemas/config/model-map.json, docs/decisions.md#processing); loading it is the caller's job, checking
// its shape is validateModelMap's.

/**
 * A Map, not a plain object: a lookup of a model named `constructor` or `__proto__` must not find
 * Object.prototype members.
 */
export type ModelMap = ReadonlyMap<string, string>;

export type ModelMapResult = { ok: true; value: ModelMap } | { ok: false; reason: string };

/**
 * Spec 3.3: exact key match (case, spaces and punctuation count: `fci3k` and `FCI3K` are different keys).
 * A null model (the device sent none) stays null.
 *
 * @example replaceModel('FI-2000-A', map) // 'FCI-2000'
 */
export function replaceModel(model: string | null, map: ModelMap): string | null {
  if (model === null) return null;
  return map.get(model) ?? model;
}

/**
 * Checks the parsed JSON of a model map: an object whose keys and values are non-empty strings. A key that
 * maps to itself is allowed (harmless); a value that is itself a key is refused, because replacement is
 * applied once and a chain would mean the file says two different things.
 */
export function validateModelMap(value: unknown): ModelMapResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'model map: must be a JSON object of "reported model": "standard model"' };
  }
  const map = new Map<string, string>();
  for (const [key, target] of Object.entries(value)) {
    if (key === '') return { ok: false, reason: 'model map: a key is empty' };
    if (typeof target !== 'string' || target.trim() === '') {
      return { ok: false, reason: `model map: ${JSON.stringify(key)} must map to a non-empty string` };
    }
    map.set(key, target);
  }
  for (const [key, target] of map) {
    if (target !== key && map.has(target) && map.get(target) !== target) {
      return { ok: false, reason: `model map: ${JSON.stringify(key)} maps to ${JSON.stringify(target)}, which is itself replaced` };
    }
  }
  return { ok: true, value: map };
}
