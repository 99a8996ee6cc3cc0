/** A page of the console: its content, and what to stop (timers, streams) when the reader leaves it. */
export interface View {
  readonly element: HTMLElement;
  dispose(): void;
}

export type Navigate = (path: string, options?: { replace?: boolean }) => void;
