type Child = Node | string | null | undefined | false;
type Attribute = string | boolean | undefined | ((event: Event) => void);

/**
 * What a browser does not show as it is: Unicode's format characters (\p{Cf}) and the line and paragraph
 * separators (U+2028, U+2029). Among the format characters, the bidirectional controls (embeddings,
 * overrides, isolates, marks) make it show a string's characters in another order than they have (Trojan
 * Source); the zero-width space, non-joiner and joiner, word joiner, BOM, soft hyphen, invisible operators,
 * tag characters and the rest it draws as nothing or next to it, so text can hide in a run id or make two
 * strings that differ look alike. The separators it may draw as a line break. `h` shows each as its escape.
 * Ordinary whitespace (space, tab, newline) is none of them and stays as it is. The CLI, writing for a
 * terminal, has a set of its own (libs/client/src/cli/visible.ts), which also writes out C0 and C1
 * controls, newline among them.
 */
const HIDDEN = /[\p{Cf}\u2028\u2029]/gu;

/** What a hidden character is, for the title of its escape. */
function describe(char: string): string {
  return /\p{Bidi_Control}/u.test(char)
    ? 'a bidirectional control, shown instead of obeyed'
    : 'an invisible character, shown instead of hidden';
}

/**
 * Builds an element. Text is always a text node (never parsed as HTML), so nothing a run or a server
 * sends can inject markup, and each format character or line or paragraph separator in it (HIDDEN) is
 * shown as its escape (`\u202e`, `\u200b`, styled apart) instead of reordering or hiding what is shown;
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
 * Text as text nodes, each hidden character in it replaced by its escape in a `span.control`: `\u200b`, or
 * `\u{e0041}` beyond the Basic Multilingual Plane (a tag character).
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
