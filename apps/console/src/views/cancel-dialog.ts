import { h } from '../dom';

/**
 * A confirmation before a cancel, as a native modal dialog: focus moves into it, Escape dismisses it,
 * and the safe choice ("Keep running") is focused first.
 */
export function confirmCancel(runLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const keep = h('button', { type: 'button', class: 'secondary', value: 'keep' }, 'Keep running');
    const confirm = h('button', { type: 'button', class: 'danger', value: 'cancel' }, 'Cancel run');
    const dialog = h(
      'dialog',
      { 'aria-labelledby': 'cancel-title', 'aria-describedby': 'cancel-text', class: 'confirm' },
      h('h2', { id: 'cancel-title' }, 'Cancel this run?'),
      h('p', { id: 'cancel-text' }, `Run ${runLabel} will be stopped. This cannot be undone.`),
      h('div', { class: 'actions' }, keep, confirm),
    );
    const close = (answer: boolean): void => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    keep.addEventListener('click', () => close(false));
    confirm.addEventListener('click', () => close(true));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    keep.focus();
  });
}
