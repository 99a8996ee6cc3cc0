import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { authOf } from '@wrs/auth';
import type { Immutable, ProviderCredential, ProviderCredentialList } from '@wrs/contracts/types';
import type { Request } from 'express';
import { CreateProviderCredentialDto } from './create-provider-credential.dto';
import { toProviderCredential, toProviderCredentialList } from './provider-credential-resource';
import { ProviderCredentialsService } from './provider-credentials.service';

export { CREDENTIALS_OPTIONS } from './credentials-options';

/** A workspace's provider keys: stored sealed, listed by fingerprint and last four, never returned. */
@Controller('provider-credentials')
export class ProviderCredentialsController {
  constructor(private readonly credentials: ProviderCredentialsService) {}

  @Post()
  @HttpCode(201)
  async add(@Req() req: Request, @Body() body: CreateProviderCredentialDto): Promise<Immutable<ProviderCredential>> {
    return toProviderCredential(await this.credentials.add(authOf(req).workspaceId, body));
  }

  @Get()
  async list(@Req() req: Request): Promise<Immutable<ProviderCredentialList>> {
    return toProviderCredentialList(await this.credentials.list(authOf(req).workspaceId));
  }

  @Delete(':credentialId')
  @HttpCode(204)
  async remove(@Req() req: Request, @Param('credentialId') id: string): Promise<void> {
    await this.credentials.remove(authOf(req).workspaceId, id);
  }
}
