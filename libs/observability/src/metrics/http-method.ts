const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** A client can send any method name: labels take the standard ones, everything else is `other`. */
export function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : 'other';
}
