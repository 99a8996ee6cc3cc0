const REDACTED = '[redacted]';
/** Shorter strings could match ordinary words of a message (tests' tokens); a real token is longer. */
const MIN_LENGTH = 8;

/**
 * The text with every trace of the secret replaced: the secret as it is, as JSON escapes it, and each
 * run of visible characters in it (a message may show a token split at its line break).
 */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret) {
    return text;
  }
  const forms = [secret, JSON.stringify(secret).slice(1, -1), ...secret.split(/[^\x21-\x7e]+/)]
    .filter((form) => form.length >= MIN_LENGTH)
    .sort((a, b) => b.length - a.length);
  return forms.reduce((redacted, form) => redacted.split(form).join(REDACTED), text);
}
