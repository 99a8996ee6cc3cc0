/** C0 controls but tab, DEL and C1 controls: what a terminal may act on instead of showing. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;

/**
 * Text from a workload or a provider as a terminal shows it harmlessly: each control character written
 * out (`\x1b`, `\r`, `\n`), so an escape sequence cannot recolour, move the cursor or set the clipboard
 * (OSC 52), a `\r` cannot overwrite what came before and a `\n` cannot start a fake line. Tab stays.
 */
export function visible(text: string): string {
  return text.replace(CONTROL, (char) => {
    if (char === '\n') {
      return '\\n';
    }
    if (char === '\r') {
      return '\\r';
    }
    return `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}
