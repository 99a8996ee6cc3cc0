import { Controller, Get, Inject } from '@nestjs/common';
import { Public } from '@wrs/auth';
import { CONTRACT_VERSION, contractDocument } from '@wrs/contracts';
import type { Immutable, VersionInfo } from '@wrs/contracts/types';
import { toVersionInfo } from './version-resource';

export const BUILD_INFO = Symbol('BUILD_INFO');

export interface BuildInfo {
  readonly version: string;
  readonly commit: string | null;
}

@Controller()
export class MetaController {
  constructor(@Inject(BUILD_INFO) private readonly build: BuildInfo) {}

  @Public()
  @Get('version')
  version(): Immutable<VersionInfo> {
    return toVersionInfo(CONTRACT_VERSION, this.build);
  }

  /** The OpenAPI document this server is held to. */
  @Public()
  @Get('openapi.json')
  openapi(): unknown {
    return contractDocument();
  }
}
