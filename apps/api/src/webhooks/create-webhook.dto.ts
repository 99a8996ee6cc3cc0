import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsString,
  MaxLength,
  Validate,
  type ValidatorConstraintInterface,
  ValidatorConstraint,
} from 'class-validator';
import type { WebhookEventKind } from '@wrs/persistence';
import { OptionalNotNull } from '../validation/optional';

export const WEBHOOK_EVENT_KINDS: readonly WebhookEventKind[] = ['completed', 'started', 'logs'];

/** An https URL with a host, no credentials (they would be stored and shown) and no fragment. */
@ValidatorConstraint({ name: 'webhookUrl' })
class WebhookUrl implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string' || !value.startsWith('https://')) {
      return false;
    }
    try {
      const url = new URL(value);
      return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '' && url.hash === '';
    } catch {
      return false;
    }
  }

  defaultMessage(): string {
    return 'url must be an https URL without credentials or fragment';
  }
}

export class CreateWebhookDto {
  @IsString()
  @MaxLength(2048)
  @Validate(WebhookUrl)
  url!: string;

  @OptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_KINDS, { each: true, message: `each of events must be one of ${WEBHOOK_EVENT_KINDS.join(', ')}` })
  events?: WebhookEventKind[];
}
