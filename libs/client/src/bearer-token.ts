import { WrsConfigurationError } from './errors';

/**
 * The token as sent: without the spaces and line breaks around it (fetch trims those from a header value
 * anyway, so a config file's trailing newline keeps working). A token with anything but visible ASCII
 * inside is refused before any request: fetch would throw with the whole header value in its message.
 */
export function headerToken(raw: string, origin = 'the token'): string {
  const token = raw.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  const bad = /[^\x21-\x7e]/.exec(token);
  if (bad) {
    throw new WrsConfigurationError(
      `${origin} cannot be sent: it holds ${kindOf(bad[0])} at character ${bad.index + 1} (a token is one line of visible ASCII; was it pasted across lines?)`,
    );
  }
  if (token === '') {
    throw new WrsConfigurationError(`${origin} is empty`);
  }
  return token;
}

/** Names the character without quoting it, so the message shows nothing of the token. */
function kindOf(char: string): string {
  if (char === '\n' || char === '\r') {
    return 'a line break';
  }
  if (char === '\0') {
    return 'a NUL';
  }
  if (char === ' ' || char === '\t') {
    return 'a space';
  }
  return char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f ? 'a control character' : 'a non-ASCII character';
}
