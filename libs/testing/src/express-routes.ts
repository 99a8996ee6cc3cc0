/**
 * The routes an Express 5 application really answers, as `METHOD /path-template` with OpenAPI-style
 * `{param}` segments and without the API prefix: what the drift test compares with the contract.
 */
export function expressRoutes(expressApp: unknown, prefix: string): string[] {
  const router = (expressApp as { router?: { stack: Layer[] } }).router;
  if (!router) {
    throw new Error('not an Express 5 application');
  }
  return router.stack.flatMap((layer) => {
    if (!layer.route) {
      return [];
    }
    const path = layer.route.path
      .replace(prefix, '')
      .replace(/\\:/g, '\u0000')
      .replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')
      .replace(/\u0000/g, ':');
    return Object.keys(layer.route.methods)
      .filter((m) => m !== '_all')
      .map((m) => `${m.toUpperCase()} ${path}`);
  });
}

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}
