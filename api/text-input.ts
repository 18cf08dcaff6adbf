// Text that may travel to Postgres as a parameter: PostgreSQL text cannot hold NUL, and a lone UTF-16
// surrogate has no UTF-8 form, so either would be a database error (a 500) instead of a 400.

// (String.prototype.isWellFormed is ES2024; the project compiles against ES2023.)
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}
