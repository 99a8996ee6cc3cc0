import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';

/** An image reference: [registry[:port]/]path[:tag][@digest], lower-case path, no spaces. */
const IMAGE_REFERENCE = /^[a-zA-Z0-9][a-zA-Z0-9._:/@-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function IsEnvMap(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isEnvMap',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'env must map variable names to string values (at most 64 entries)', ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length <= 64 &&
          Object.entries(value).every(
            ([k, v]) => ENV_NAME.test(k) && k.length <= 128 && typeof v === 'string' && v.length <= 4096,
          ),
      },
    });
}

export class WorkloadDto {
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  @Matches(IMAGE_REFERENCE, { message: 'image must be a container image reference' })
  image!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  @MaxLength(4096, { each: true })
  command?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(256)
  @IsString({ each: true })
  @MaxLength(4096, { each: true })
  args?: string[];

  @IsOptional()
  @IsEnvMap()
  env?: Record<string, string>;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86400)
  timeoutSeconds?: number;
}

export class CreateRunDto {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => WorkloadDto)
  workload!: WorkloadDto;

  @IsString()
  @Matches(/^[a-z][a-z0-9-]{0,62}$/, { message: 'provider must be `auto` or a provider name' })
  provider!: string;

  @IsString()
  @Matches(/^[a-z][a-z0-9-]{0,62}$/, { message: 'region must be `auto` or a region name' })
  region!: string;
}
