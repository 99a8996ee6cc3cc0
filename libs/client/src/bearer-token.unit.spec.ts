import { headerToken } from './bearer-token';
import { WrsConfigurationError } from './errors';

const TOKEN = 'eyJhbGciOiJFZERTQSJ9.eyJ3cyI6ImRlbW8ifQ.c2lnbmF0dXJlLXBhcnQ';

function refusal(raw: string, origin?: string): WrsConfigurationError {
  try {
    headerToken(raw, origin);
  } catch (error) {
    if (error instanceof WrsConfigurationError) {
      return error;
    }
    throw error;
  }
  throw new Error('the token was not refused');
}

describe('a token as an Authorization header carries it', () => {
  it('is sent without the spaces and line breaks around it, as fetch would trim them', () => {
    expect(headerToken(`${TOKEN}\n`)).toBe(TOKEN);
    expect(headerToken(`  ${TOKEN}\r\n`)).toBe(TOKEN);
  });

  it.each([
    ['a line break', `${TOKEN.slice(0, 20)}\n${TOKEN.slice(20)}`, 21],
    ['a line break', `${TOKEN.slice(0, 20)}\r\n${TOKEN.slice(20)}`, 21],
    ['a NUL', `${TOKEN.slice(0, 20)}\0${TOKEN.slice(20)}`, 21],
    ['a space', `${TOKEN.slice(0, 20)} ${TOKEN.slice(20)}`, 21],
    ['a control character', `${TOKEN.slice(0, 20)}\x1b${TOKEN.slice(20)}`, 21],
    ['a non-ASCII character', `${TOKEN.slice(0, 20)}€${TOKEN.slice(20)}`, 21],
  ])('is refused when it holds %s inside, saying where without quoting it', (kind, raw, at) => {
    const error = refusal(raw, 'WRS_TOKEN');
    expect(error.message).toBe(
      `WRS_TOKEN cannot be sent: it holds ${kind} at character ${at} (a token is one line of visible ASCII; was it pasted across lines?)`,
    );
    expect(error.message).not.toContain(TOKEN.slice(0, 20));
    expect(error.message).not.toContain(TOKEN.slice(20));
  });

  it('is refused when there is nothing but spaces', () => {
    expect(refusal(' \n').message).toBe('the token is empty');
  });
});
