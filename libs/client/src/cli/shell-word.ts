import { visible } from './visible';

/** What a shell reads as one literal word without quotes: not starting with `~` (bash's home and directory expansion) or `=` (zsh's command path). */
const PLAIN_WORD = /^[A-Za-z0-9._+/:@%,-][A-Za-z0-9._~+/=:@%,-]*$/;

/**
 * A server's value (an opaque cursor) as one word of a command printed for a person to paste: quoted
 * when it holds anything else, so `;`, `|` or `$(...)` in it cannot run, and control characters written out.
 */
export function shellWord(text: string): string {
  return visible(PLAIN_WORD.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);
}
