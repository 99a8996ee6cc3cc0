import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { pageSecurityHeaders } from '@wrs/auth';
import type { HttpMount } from '@wrs/edge';
import type { NextFunction, Request, Response } from 'express';

export const CONSOLE_PATH = '/console';

/**
 * What the console's page may do: its own scripts, styles and API calls, nothing inline, nothing from
 * elsewhere, never framed. The API's answers are not pages and carry no CSP.
 */
export const CONSOLE_CSP: Record<string, readonly string[]> = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'connect-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

interface StaticFile {
  readonly body: Buffer;
  readonly type: string;
  readonly immutable: boolean;
}

/**
 * Serves the console's build under /console from files read once at start, so no path is ever joined from
 * the URL. Extensionless unknown paths get index.html for the console's router; no build serves nothing.
 */
export function consoleStaticMiddleware(dir: string) {
  const files = existsSync(join(dir, 'index.html')) ? readTree(dir) : new Map<string, StaticFile>();
  const index = files.get('/index.html');
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!index || (req.method !== 'GET' && req.method !== 'HEAD')) {
      next();
      return;
    }
    const path = req.path === '/' ? '/index.html' : req.path;
    const file = files.get(path) ?? (extname(path) === '' ? index : undefined);
    if (!file) {
      next();
      return;
    }
    res.setHeader('Content-Type', file.type);
    // Assets are named by their content hash; the page itself must be revalidated to pick up a deploy.
    res.setHeader('Cache-Control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    res.status(200).end(req.method === 'HEAD' ? undefined : file.body);
  };
}

/** The console under CONSOLE_PATH with a page's security headers, as the api's start-up mounts it. */
export function consoleMount(dir: string): HttpMount {
  return { path: CONSOLE_PATH, handlers: [pageSecurityHeaders(CONSOLE_CSP), consoleStaticMiddleware(dir)] };
}

function readTree(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const walk = (current: string): void => {
    for (const name of readdirSync(current)) {
      const full = join(current, name);
      if (statSync(full).isDirectory()) {
        walk(full);
        continue;
      }
      const urlPath = `/${relative(dir, full).split(sep).join('/')}`;
      files.set(urlPath, {
        body: readFileSync(full),
        type: TYPES[extname(name)] ?? 'application/octet-stream',
        immutable: urlPath.startsWith('/assets/'),
      });
    }
  };
  walk(dir);
  return files;
}
