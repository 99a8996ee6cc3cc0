import { LABEL_LIMITS, refusedLabelKeys } from '@wrs/domain';
import { registerDecorator, type ValidationOptions } from 'class-validator';

/** Run labels (the contract's `Labels`): at most `maxLabels` entries, keys and values of Kubernetes' label form. */
export function IsLabelMap(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isLabelMap',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { context: { limit: LABEL_LIMITS.maxLabels }, ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length <= LABEL_LIMITS.maxLabels &&
          refusedLabelKeys(value).length === 0,
        // The keys refused are named, as for env: a client must see which of its labels was the problem.
        defaultMessage: (args) => {
          const refused = typeof args?.value === 'object' && args.value !== null ? refusedLabelKeys(args.value as object) : [];
          const rule =
            `labels must map keys ([prefix/]name: a DNS subdomain of at most ${LABEL_LIMITS.maxPrefixLength} characters, a name of at most ` +
            `${LABEL_LIMITS.maxNameLength}: letters, digits, -, _ and ., a letter or digit at each end) to values (empty or a name), ` +
            `at most ${LABEL_LIMITS.maxLabels} entries`;
          return refused.length > 0 ? `${rule}; refused: ${refused.map((k) => JSON.stringify(k)).join(', ')}` : rule;
        },
      },
    });
}
