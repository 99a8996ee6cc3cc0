import { Module } from '@nestjs/common';
import { MetaController } from './meta.controller';

/** What the service is: its version and build, and the contract it is held to. */
@Module({ controllers: [MetaController] })
export class MetaModule {}
