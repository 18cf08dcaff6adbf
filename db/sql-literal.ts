// Values we computed, spelled into SQL text instead of passed as $n: the planner must see them (a month range
// it can prune to, a limit it can stop at; docs/decisions.md#storage-lifecycle). Each is re-printed from a
// parsed number or instant, so only digits and ISO punctuation reach the text, never caller input.

/** `'<ISO instant>'::timestamptz` for an ISO string or epoch milliseconds. */
export function timestamptzLiteral(at: string | number): string {
  return `'${new Date(at).toISOString()}'::timestamptz`;
}

/** An integer (a limit, an offset) as SQL text. */
export function integerLiteral(n: number): string {
  return String(Math.trunc(n));
}
