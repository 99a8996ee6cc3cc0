type Child = Node | string | null | undefined | false;
type Attribute = string | boolean | undefined | ((event: Event) => void);

/**
 * Builds an element. Text is always a text node (never parsed as HTML), so nothing a run or a server
 * sends can inject markup; `on…` attributes become listeners, booleans toggle, undefined is skipped.
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
    if (child !== null && child !== undefined && child !== false) {
      parent.append(child);
    }
  }
}

/** Replaces an element's children. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}
