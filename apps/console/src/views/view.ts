/** A page of the console: its content, and what to stop (timers, streams) when the reader leaves it. */
export interface View {
  readonly element: HTMLElement;
  dispose(): void;
}

/** Goes to a console URL; `state` is kept with that history entry (see list-position). */
export type Navigate = (path: string, options?: { replace?: boolean; state?: unknown }) => void;
