// Text that may travel to Postgres as a parameter (docs/decisions.md#request-attack): PostgreSQL text cannot
// hold NUL, and a lone UTF-16 surrogate has no UTF-8 form, so either would be a database error (a 500) instead
// of the 400 naming the field. The API's request kit (api/request.ts) and the import's field reader
// (reference-data/field-reader.ts) both ask this.
// (String.prototype.isWellFormed is ES2024; the project compiles against ES2023.)
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/** The longest id of reference data (a rule, a recipient, a power line): what an import accepts and a path or query may name. */
export const MAX_ID_LENGTH = 100;
