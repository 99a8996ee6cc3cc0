import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { ProblemError } from '@wrs/problem';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';

/** class-validator on request bodies, failing as a `validation_failed` problem that lists each field. */
@Injectable()
export class BodyValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const type = metadata.type === 'body' ? metadata.metatype : undefined;
    if (!type || type === Object) {
      return value;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ProblemError('validation_failed', { detail: 'the request body must be a JSON object' });
    }
    const instance: object = plainToInstance(type, value);
    const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
    if (errors.length > 0) {
      throw new ProblemError('validation_failed', { params: { errors: flatten(errors) } });
    }
    return instance;
  }
}

interface FieldError {
  field: string;
  message: string;
  /** The bound that was crossed, when the rule has one (a length, a count, a range end). */
  limit?: number;
}

function flatten(errors: ValidationError[], prefix = ''): FieldError[] {
  return errors.flatMap((e) => {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    const own = Object.entries(e.constraints ?? {}).map(([rule, message]) => {
      const limit = (e.contexts?.[rule] as { limit?: number } | undefined)?.limit;
      return limit === undefined ? { field, message } : { field, message, limit };
    });
    return [...own, ...flatten(e.children ?? [], field)];
  });
}
