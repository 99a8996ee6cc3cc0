import type { NextFunction, Request, Response } from 'express';
import { ProblemError } from './problem-error';

/**
 * Refuses with 406 a request whose Accept header allows none of the media types the service produces.
 * A missing Accept header accepts anything (RFC 9110 §12.5.1).
 */
export function acceptMiddleware(produces: readonly string[]) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const accept = req.header('accept');
    if (!accept || accepts(accept, produces)) {
      next();
      return;
    }
    next(new ProblemError('not_acceptable', { params: { produces } }));
  };
}

export function accepts(accept: string, produces: readonly string[]): boolean {
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) {
      return false;
    }
    const [major, minor] = type.trim().split('/');
    return produces.some((media) => {
      const [pMajor, pMinor] = media.split('/');
      return (major === '*' || major === pMajor) && (minor === '*' || minor === pMinor);
    });
  });
}

export interface Operation {
  readonly method: string;
  readonly template: string;
}

/**
 * 405 with `Allow` for a known path with another method (unknown paths stay 404), from the contract's
 * templates. The most literal template wins, so `/runs/x:cancel` is the cancel route, not a run id.
 */
export function methodNotAllowedMiddleware(prefix: string, operations: readonly Operation[]) {
  const matchers = operations.map((op) => ({
    method: op.method.toUpperCase(),
    pattern: new RegExp(`^${escape(prefix + op.template).replace(/\\\{[^}]+\\\}/g, '[^/]+')}/?$`),
    literal: op.template.replace(/\{[^}]+\}/g, '').length,
  }));
  return (req: Request, _res: Response, next: NextFunction): void => {
    const path = req.path;
    const matching = matchers.filter((m) => m.pattern.test(path));
    const mostLiteral = Math.max(...matching.map((m) => m.literal));
    const allowed = new Set(matching.filter((m) => m.literal === mostLiteral).map((m) => m.method));
    if (allowed.has('GET')) {
      allowed.add('HEAD');
    }
    if (allowed.size === 0 || allowed.has(req.method)) {
      next();
      return;
    }
    const allow = [...allowed].sort().join(', ');
    next(new ProblemError('method_not_allowed', { headers: { Allow: allow }, params: { allowed: [...allowed].sort() } }));
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
