type Child = Node | string | null | undefined | false;
type Attribute = string | boolean | undefined | ((event: Event) => void);

/**
 * What a browser does not show as it is, the set the CLI writes out for a terminal
 * (libs/client/src/cli/visible.ts) but tab and newline: the C0 controls but tab and newline (NUL, ESC, CR,
 * ...), DEL and the C1 controls (U+0080-U+009F, NEL U+0085 among them), which Chromium draws as nothing
 * (CR) or as one box alike for each (ESC, NUL, NEL); Unicode's format characters (\p{Cf}); every character Unicode renders as nothing
 * (\p{Default_Ignorable_Code_Point}: Hangul fillers U+3164, U+115F, U+1160 and U+FFA0, variation selectors
 * U+FE00-U+FE0F, U+E0100-U+E01EF and U+180B-U+180F, the combining grapheme joiner U+034F, ...); and the line
 * and paragraph separators (U+2028, U+2029). Among the format characters, the bidirectional controls
 * (embeddings, overrides, isolates, marks) make it show a string's characters in another order than they
 * have (Trojan Source); the zero-width space, non-joiner and joiner, word joiner, BOM, soft hyphen,
 * invisible operators, tag characters and the rest it draws as nothing or next to it, so text can hide in a
 * run id or make two strings that differ look alike, as the default ignorables can. The separators it may
 * draw as a line break. `h` shows each as its escape. Tab and newline stay as they are (a log line keeps
 * its tabs; `.logs li` is pre-wrap), and so does the space.
 */
const HIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029]/gu;

/** What a hidden character is, for the title of its escape. */
function describe(char: string): string {
  if (/\p{Bidi_Control}/u.test(char)) {
    return 'a bidirectional control, shown instead of obeyed';
  }
  return /\p{Cc}/u.test(char) ? 'a control character, shown as its code' : 'an invisible character, shown instead of hidden';
}

/**
 * Builds an element. Text is always a text node (never parsed as HTML), so nothing a run or a server
 * sends can inject markup, and each control, format, default-ignorable, line or paragraph separator
 * character in it but tab and newline (HIDDEN) is shown as its escape (`\u202e`, `\u200b`, `\u001b`,
 * styled apart) instead of reordering or hiding what is shown;
 * right-to-left letters show as they are. `on…` attributes become listeners, booleans toggle, undefined
 * is skipped.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, Attribute> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') {
      element.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (typeof value === 'boolean') {
      element.toggleAttribute(name, value);
    } else if (value !== undefined) {
      element.setAttribute(name, value);
    }
  }
  append(element, ...children);
  return element;
}

export function append(parent: Element, ...children: Child[]): void {
  for (const child of children) {
    if (typeof child === 'string') {
      appendText(parent, child);
    } else if (child !== null && child !== undefined && child !== false) {
      parent.append(child);
    }
  }
}

/** Replaces an element's children. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/**
 * Text as text nodes, each hidden character in it replaced by its escape in a `span.control`: `\u200b`,
 * `\u001b`, or `\u{e0041}` beyond the Basic Multilingual Plane (a tag character, a variation selector).
 */
function appendText(parent: Element, text: string): void {
  let from = 0;
  for (const match of text.matchAll(HIDDEN)) {
    const at = match.index;
    if (at > from) {
      parent.append(text.slice(from, at));
    }
    const char = match[0];
    const code = (char.codePointAt(0) ?? 0).toString(16).padStart(4, '0');
    const shown = document.createElement('span');
    shown.className = 'control';
    shown.title = `U+${code.toUpperCase()}, ${describe(char)}`;
    shown.textContent = code.length > 4 ? `\\u{${code}}` : `\\u${code}`;
    parent.append(shown);
    from = at + char.length;
  }
  if (from < text.length || text.length === 0) {
    parent.append(text.slice(from));
  }
}
