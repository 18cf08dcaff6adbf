// Secrets that must not be left at the documentation's example (docs/decisions.md#secrets-left-at-their-example):
// the one list of placeholders the README, docs/, ops/ and the example env files use for a secret, the settings
// that hold a secret, and the rule. Pure: config/settings.ts applies it when it reads the environment, and
// test/docs/secret-placeholders.test.ts checks that every example value the documentation gives for these
// settings is one this rule refuses.

/**
 * Every placeholder the documentation writes where a secret goes, compared without case. A secret equal to one
 * is refused; one that contains one of at least MIN_CONTAINED characters is refused too (a placeholder with
 * something appended is still the published text). Shorter ones ("pass") would match by chance inside a random
 * secret, so only equality counts for them.
 */
export const SECRET_PLACEHOLDERS: readonly string[] = [
  'CHANGE-ME', // docs/examples/deploy/*.env, docs/examples/import.json, docs/integration.md
  'at-least-32-bytes-of-random-text', // docs/examples/deploy/secrets.env (JWT_SECRET)
  'password', // README: ALARM_SMTP_URL smtp://user:password@host:587
  'pass', // config/settings.ts: smtp://user:pass@host:port
];

const MIN_CONTAINED = 8;

/** The settings that hold a secret, and which part of each is the secret: the whole value, or a URL's password. */
export const SECRET_SETTINGS = {
  JWT_SECRET: 'value',
  FAULTLINE_SECRET_KEYS: 'value',
  ALARM_SMS_TOKEN: 'value',
  ALARM_SMTP_URL: 'url-password',
  DATABASE_URL: 'url-password',
} as const satisfies Record<string, 'value' | 'url-password'>;

export type SecretSetting = keyof typeof SECRET_SETTINGS;

/** True when `secret` is, or contains, a documented placeholder. */
export function isPlaceholder(secret: string): boolean {
  const s = secret.trim().toLowerCase();
  return SECRET_PLACEHOLDERS.some((p) => {
    const q = p.toLowerCase();
    return s === q || (q.length >= MIN_CONTAINED && s.includes(q));
  });
}

/** A URL's password, decoded; null when it has none or is no URL. */
function urlPassword(text: string): string | null {
  try {
    const password = new URL(text).password;
    return password ? decodeURIComponent(password) : null;
  } catch {
    return null;
  }
}

/** The part of a setting's value that is the secret (null: none there). */
export function secretPart(name: SecretSetting, value: string): string | null {
  return SECRET_SETTINGS[name] === 'url-password' ? urlPassword(value) : value;
}

/**
 * The sentence refusing the first secret setting in `env` left at a placeholder, or null. It names the variable,
 * never its value.
 */
export function placeholderProblem(env: NodeJS.ProcessEnv): string | null {
  for (const name of Object.keys(SECRET_SETTINGS) as SecretSetting[]) {
    const value = env[name];
    if (!value) continue;
    const secret = secretPart(name, value);
    if (secret === null || !isPlaceholder(secret)) continue;
    const what = SECRET_SETTINGS[name] === 'url-password' ? `${name}'s password` : name;
    return `${what} is still a placeholder from the documentation's examples: anyone who read them knows it; set a secret of your own (e.g. openssl rand -base64 48) before starting`;
  }
  return null;
}
