/**
 * Run labels, of Kubernetes' label form (the contract's `Labels` and `LabelSelector` schemas): a key is
 * a name of at most 63 characters, optionally after a DNS subdomain prefix of at most 253 and a `/`; a
 * value is empty or of a name's form.
 */
export const LABEL_LIMITS = { maxLabels: 16, maxPrefixLength: 253, maxNameLength: 63 } as const;

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function isLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) {
    return NAME.test(key);
  }
  const prefix = key.slice(0, slash);
  return prefix.length <= LABEL_LIMITS.maxPrefixLength && DNS_SUBDOMAIN.test(prefix) && NAME.test(key.slice(slash + 1));
}

export function isLabelValue(value: string): boolean {
  return value === '' || NAME.test(value);
}

/** The keys of a labels object that are out of form, or whose value is not a string of label form. */
export function refusedLabelKeys(labels: object): string[] {
  return Object.entries(labels)
    .filter(([key, value]) => !(isLabelKey(key) && typeof value === 'string' && isLabelValue(value)))
    .map(([key]) => key);
}

/** A `key=value` filter as one label, or null when either side is out of form. */
export function parseLabelSelector(selector: string): { key: string; value: string } | null {
  const equals = selector.indexOf('=');
  if (equals < 0) {
    return null;
  }
  const key = selector.slice(0, equals);
  const value = selector.slice(equals + 1);
  return isLabelKey(key) && isLabelValue(value) ? { key, value } : null;
}
