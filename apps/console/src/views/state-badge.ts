import { h } from '../dom';

/** The state as a word (never colour alone), styled per state. */
export function stateBadge(state: string): HTMLElement {
  return h('span', { class: `state state-${/^[a-z]+$/.test(state) ? state : 'unknown'}`, 'data-state': state }, state);
}
