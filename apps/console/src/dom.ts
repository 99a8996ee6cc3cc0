type Child = Node | string | null | undefined | false;
type Attribute = string | boolean | undefined | ((event: Event) => void);

/**
 * Unicode's bidirectional controls (embeddings, overrides, isolates, marks): in a string they make the
 * browser show its characters in another order than they have (Trojan Source), so `h` never lets one act.
 * The same set the CLI writes out (libs/client/src/cli/visible.ts).
 */
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Builds an element. Text is always a text node (never parsed as HTML), so nothing a run or a server
 * sends can inject markup, and each bidirectional control in it is shown as its escape (`\u202e`, styled
 * apart) instead of reordering what is shown; right-to-left letters show as they are. `on…` attributes
 * become listeners, booleans toggle, undefined is skipped.
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

/** Text as text nodes, each bidirectional control in it replaced by its escape in a `span.control`. */
function appendText(parent: Element, text: string): void {
  let from = 0;
  for (const match of text.matchAll(BIDI_CONTROL)) {
    const at = match.index;
    if (at > from) {
      parent.append(text.slice(from, at));
    }
    const code = match[0].charCodeAt(0).toString(16).padStart(4, '0');
    const shown = document.createElement('span');
    shown.className = 'control';
    shown.title = `U+${code.toUpperCase()}, a bidirectional control, shown instead of obeyed`;
    shown.textContent = `\\u${code}`;
    parent.append(shown);
    from = at + 1;
  }
  if (from < text.length || text.length === 0) {
    parent.append(text.slice(from));
  }
}
