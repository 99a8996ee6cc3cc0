import { Module } from '@nestjs/common';
import { NoopController } from './noop.controller';

/** One no-op controller and nothing else: no auth or rate-limit guard, no dependency. */
@Module({ controllers: [NoopController] })
export class FloorModule {}
