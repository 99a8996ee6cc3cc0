import { LOG_LIMITS } from '@wrs/domain';

/**
 * A line ended by CRLF (a Windows program, a TTY's output) without its CR: the CR is part of the line
 * ending, not of the text, and a reader would otherwise see a stray `\r` (shown escaped) on every line.
 * A CR inside a line (a progress bar redrawn) stays.
 */
export function withoutLineEnding(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/**
 * The most of a line a provider keeps: what a run records of it (storableLine cuts there), so a workload
 * writing without a newline cannot grow the worker's memory past it.
 */
export const KEPT_LINE_LENGTH = LOG_LIMITS.maxLineLength;
