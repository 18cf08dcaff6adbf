// Reads the fields of one JSON object of an import file, collecting every problem with its path instead
// of stopping at the first: an operator fixing a 10,000-device file wants the whole list at once.
import type { Problem } from './errors.js';
import { isPlaceholder } from '../config/secret-placeholders.js';
import { isStorableText, MAX_ID_LENGTH } from '../domain/storable-text.js';

/** Collected problems (refuse the file) and warnings (import it, but tell the operator). */
export class ProblemList {
  readonly problems: Problem[] = [];
  readonly warnings: Problem[] = [];
  add(path: string, message: string): void { this.problems.push({ path, message }); }
  warn(path: string, message: string): void { this.warnings.push({ path, message }); }
}

/** A value quoted for a message: short, and JSON so an empty string or a number is visible as such. */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Identifiers must survive a round trip through URLs, CSV and log lines unchanged.
const ID_TEXT = /^[^\s\p{Cc}](?:[^\p{Cc}]*[^\s\p{Cc}])?$/u;
export { MAX_ID_LENGTH };
export const MAX_TEXT_LENGTH = 500;
/** Names no value: the path says which field of which row. */
const PLACEHOLDER_REFUSED = "is still a placeholder from the documentation's examples: anyone who read them knows it; set a secret of your own";

interface StringRules {
  max?: number;
  pattern?: RegExp;
  /** Said after "must be" when the pattern fails. */
  patternText?: string;
  /**
   * Secret fields: a problem never quotes the value, and a documented placeholder (the example file's
   * `change-me-...`) is refused (docs/decisions.md#secrets-left-at-their-example).
   */
  secret?: boolean;
}

/**
 * Typed access to the fields of one object, `path` being where it sits in the file (`devices[3]`).
 * Getters return `undefined` after recording a problem; the caller only builds a model when no problem
 * was recorded, so the placeholders never reach the database.
 */
export class FieldReader {
  constructor(readonly obj: Record<string, unknown>, readonly path: string, readonly list: ProblemList) {}

  at(key: string): string { return `${this.path}.${key}`; }

  has(key: string): boolean { return Object.hasOwn(this.obj, key) && this.obj[key] !== undefined; }

  /** Refuses keys outside `allowed`: a typo such as `Real_name` would otherwise silently store null. */
  onlyKeys(allowed: readonly string[]): void {
    for (const key of Object.keys(this.obj)) {
      if (!allowed.includes(key)) this.list.add(this.at(key), `unknown field; expected one of ${allowed.join(', ')}`);
    }
  }

  string(key: string, rules: StringRules & { required: true }): string | undefined;
  string(key: string, rules?: StringRules & { required?: false }): string | null | undefined;
  string(key: string, rules: StringRules & { required?: boolean } = {}): string | null | undefined {
    const value = this.obj[key];
    const quoted = rules.secret ? 'the value' : show(value);
    if (value === undefined || value === null) {
      if (rules.required) { this.list.add(this.at(key), value === null ? 'must not be null' : 'is required'); return undefined; }
      return null;
    }
    if (typeof value !== 'string') { this.list.add(this.at(key), `must be a string, not ${typeName(value)}`); return undefined; }
    const max = rules.max ?? MAX_TEXT_LENGTH;
    if (value.length === 0) { this.list.add(this.at(key), 'must not be empty'); return undefined; }
    if (value.length > max) { this.list.add(this.at(key), `must be at most ${max} characters`); return undefined; }
    // Before the pattern, whose wording would not say why: a NUL or a lone surrogate cannot be stored (a 500 else).
    if (!isStorableText(value)) { this.list.add(this.at(key), 'holds a character that cannot be stored (NUL or a lone surrogate)'); return undefined; }
    if (rules.pattern && !rules.pattern.test(value)) {
      this.list.add(this.at(key), `${quoted} must be ${rules.patternText ?? `like ${rules.pattern.source}`}`);
      return undefined;
    }
    if (rules.secret && isPlaceholder(value)) {
      this.list.add(this.at(key), PLACEHOLDER_REFUSED);
      return undefined;
    }
    return value;
  }

  /** An identifier (OrganizationID, GroupID, ...): no surrounding spaces, no control characters. */
  id(key: string): string | undefined {
    return this.string(key, { required: true, max: MAX_ID_LENGTH, pattern: ID_TEXT, patternText: 'an identifier without surrounding spaces or control characters' });
  }

  /** Optional reference to an identifier; null when absent. */
  optionalId(key: string): string | null | undefined {
    return this.string(key, { max: MAX_ID_LENGTH, pattern: ID_TEXT, patternText: 'an identifier without surrounding spaces or control characters' });
  }

  boolean(key: string, fallback: boolean): boolean | undefined {
    const value = this.obj[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') { this.list.add(this.at(key), `must be true or false, not ${show(value)}`); return undefined; }
    return value;
  }

  number(key: string, rules: { min: number; max: number; integer?: boolean }): number | null | undefined {
    const value = this.obj[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isFinite(value)) { this.list.add(this.at(key), `must be a number, not ${show(value)}`); return undefined; }
    if (rules.integer && !Number.isInteger(value)) { this.list.add(this.at(key), `must be a whole number, not ${show(value)}`); return undefined; }
    if (value < rules.min || value > rules.max) { this.list.add(this.at(key), `${show(value)} must be between ${rules.min} and ${rules.max}`); return undefined; }
    return value;
  }

  oneOf<T extends string>(key: string, values: readonly T[], required: boolean): T | null | undefined {
    const value = this.obj[key];
    const allowed = values.map((v) => `"${v}"`).join(' or ');
    if (value === undefined || value === null) {
      if (required) { this.list.add(this.at(key), `is required; must be ${allowed}`); return undefined; }
      return null;
    }
    if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
      this.list.add(this.at(key), `must be ${allowed}, not ${show(value)}`);
      return undefined;
    }
    return value as T;
  }

  /** A list of identifiers, empty when absent; an identifier listed twice is a problem. */
  idList(key: string): string[] | undefined {
    const value = this.obj[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) { this.list.add(this.at(key), `must be an array of ids, not ${typeName(value)}`); return undefined; }
    const out: string[] = [];
    let ok = true;
    value.forEach((item: unknown, i) => {
      const path = `${this.at(key)}[${i}]`;
      if (typeof item !== 'string' || !ID_TEXT.test(item) || item.length > MAX_ID_LENGTH) { this.list.add(path, `must be an id, not ${show(item)}`); ok = false; return; }
      if (out.includes(item)) { this.list.add(path, `${show(item)} is listed twice`); ok = false; return; }
      out.push(item);
    });
    return ok ? out : undefined;
  }
}

/**
 * Runs `read` for each object of a top-level array, recording non-objects as problems. `paths` remembers
 * where each accepted row was, since rows that fail drop out and indexes shift.
 */
export function eachObject<T extends object>(
  value: unknown, name: string, list: ProblemList, read: (r: FieldReader) => T | undefined, paths?: WeakMap<object, string>,
): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) { list.add(name, `must be an array, not ${typeName(value)}`); return []; }
  const out: T[] = [];
  value.forEach((item: unknown, i) => {
    const path = `${name}[${i}]`;
    if (!isPlainObject(item)) { list.add(path, `must be an object, not ${typeName(item)}`); return; }
    const before = list.problems.length;
    const result = read(new FieldReader(item, path, list));
    if (result !== undefined && list.problems.length === before) {
      out.push(result);
      paths?.set(result, path);
    }
  });
  return out;
}
