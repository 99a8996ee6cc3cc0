import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { OptionalNotNull } from '../validation/optional';

export class CreateProviderCredentialDto {
  @IsString()
  @Matches(/^[a-z][a-z0-9-]{0,62}$/, { message: 'provider must be a provider name' })
  provider!: string;

  @OptionalNotNull()
  @IsString()
  @Matches(/^[a-z][a-z0-9-]{0,62}$/, { message: 'region must be a region name' })
  region?: string;

  /** The provider key itself. Accepted here only, never returned, stored sealed. */
  @IsString()
  @MinLength(8)
  @MaxLength(16384)
  secret!: string;
}
