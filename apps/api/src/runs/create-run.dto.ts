import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsInt,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';
import { NestedDto, UserKeyedMap } from '../validation/body-shape';
import { OptionalNotNull } from '../validation/optional';
import { IsLabelMap } from './is-label-map';

/** An image reference: [registry[:port]/]path[:tag][@digest], lower-case path, no spaces. */
const IMAGE_REFERENCE = /^[a-zA-Z0-9][a-zA-Z0-9._:/@-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function IsEnvMap(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isEnvMap',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { context: { limit: 64 }, ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length <= 64 &&
          refusedEnvKeys(value).length === 0,
        // The keys refused are named: a client must see which of its variables was the problem.
        defaultMessage: (args) => {
          const refused = typeof args?.value === 'object' && args.value !== null ? refusedEnvKeys(args.value as object) : [];
          const rule = 'env must map variable names (at most 128 characters) to strings (at most 4096), at most 64 entries';
          return refused.length > 0 ? `${rule}; refused: ${refused.map((k) => JSON.stringify(k)).join(', ')}` : rule;
        },
      },
    });
}

function refusedEnvKeys(value: object): string[] {
  return Object.entries(value)
    .filter(([k, v]) => !(ENV_NAME.test(k) && k.length <= 128 && typeof v === 'string' && v.length <= 4096))
    .map(([k]) => k);
}

/** Kubernetes quantities, as the contract's Resources schema. */
export class ResourcesDto {
  @OptionalNotNull()
  @IsString()
  @Matches(/^([1-9][0-9]{0,5}m|[1-9][0-9]{0,2})$/, { message: 'cpu must be millicores (500m) or whole cores (2)' })
  cpu?: string;

  @OptionalNotNull()
  @IsString()
  @Matches(/^[1-9][0-9]{0,5}(Ki|Mi|Gi)$/, { message: 'memory must be a quantity in Ki, Mi or Gi (256Mi)' })
  memory?: string;
}

export class WorkloadDto {
  @IsString()
  @MinLength(1, { context: { limit: 1 } })
  @MaxLength(512, { context: { limit: 512 } })
  @Matches(IMAGE_REFERENCE, { message: 'image must be a container image reference' })
  image!: string;

  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(64, { context: { limit: 64 } })
  @IsString({ each: true })
  @MaxLength(4096, { each: true, context: { limit: 4096 } })
  command?: string[];

  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(256, { context: { limit: 256 } })
  @IsString({ each: true })
  @MaxLength(4096, { each: true, context: { limit: 4096 } })
  args?: string[];

  @OptionalNotNull()
  @IsEnvMap()
  @UserKeyedMap()
  env?: Record<string, string>;

  @OptionalNotNull()
  @IsInt()
  @Min(1, { context: { limit: 1 } })
  @Max(86400, { context: { limit: 86400 } })
  timeoutSeconds?: number;

  @OptionalNotNull()
  @IsObject()
  @NestedDto(() => ResourcesDto)
  resources?: ResourcesDto;

  @OptionalNotNull()
  @IsLabelMap()
  @UserKeyedMap()
  labels?: Record<string, string>;
}

export class CreateRunDto {
  @IsDefined()
  @IsObject()
  @NestedDto(() => WorkloadDto)
  workload!: WorkloadDto;

  @IsString()
  @Matches(/^[a-z][a-z0-9-]{0,62}$/, { message: 'provider must be `auto` or a provider name' })
  provider!: string;

  @IsString()
  @Matches(/^[a-z][a-z0-9-]{0,62}$/, { message: 'region must be `auto` or a region name' })
  region!: string;
}
