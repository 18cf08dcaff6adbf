// The fixture secrets (test/fixtures/import.json: user passwords, MultiSpeak credentials) and a check that
// none of them appears in a text (captured logs, HTTP responses, error bodies). Every security suite runs
// its captured output through `findSecrets`; secrets.test.ts does it for a whole service process.
import { importFixture } from '../../support/checkins.js';

interface ImportFile {
  users: { email: string; password?: string }[];
  integrations: { id: string; kind: string; userId?: string; password?: string }[];
}

/** Every password and MultiSpeak password in the import fixture, with where it came from. */
export function fixtureSecrets(): { label: string; value: string }[] {
  const file = importFixture() as ImportFile;
  const out: { label: string; value: string }[] = [];
  for (const u of file.users) if (u.password) out.push({ label: `password of ${u.email}`, value: u.password });
  for (const i of file.integrations) if (i.password) out.push({ label: `MultiSpeak password of ${i.id}`, value: i.password });
  if (out.length < 4) throw new Error('the import fixture no longer holds the secrets this check looks for');
  return out;
}

/** Labels of the secrets found in `text`, also URL- and JSON-escaped and base64 (Basic auth) forms. */
export function findSecrets(text: string, secrets = fixtureSecrets()): string[] {
  const found: string[] = [];
  for (const { label, value } of secrets) {
    const forms = [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1), Buffer.from(value).toString('base64').replace(/=+$/, '')];
    if (forms.some((f) => text.includes(f))) found.push(label);
  }
  return found;
}

/** Collects every response text a suite saw, for one secrets check at the end. */
export class Capture {
  private readonly parts: string[] = [];
  count = 0;
  add(label: string, text: string): void {
    this.count++;
    this.parts.push(`--- ${label}\n${text}`);
  }
  text(): string { return this.parts.join('\n'); }
}
