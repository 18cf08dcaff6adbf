// The environment a child process starts with: this process's own plus `extra`. The one place outside the
// settings reader that touches process.env (a child such as infra/certs.sh needs PATH and the rest).
export function childEnvironment(extra: Record<string, string>): Record<string, string | undefined> {
  return { ...process.env, ...extra };
}
