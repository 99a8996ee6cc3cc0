import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'wrs:isPublic';

/** Marks a route that needs no credentials (only GET /version and the contract itself). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
