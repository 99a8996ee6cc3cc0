import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Req } from '@nestjs/common';
import { authOf } from '@wrs/auth';
import type { Immutable, Webhook, WebhookDeliveryList, WebhookList, WebhookWithSecret } from '@wrs/contracts/types';
import type { Request } from 'express';
import { CreateWebhookDto } from './create-webhook.dto';
import { toWebhook, toWebhookDeliveryList, toWebhookList, toWebhookWithSecret } from './webhook-resources';
import { WebhooksService } from './webhooks.service';

/** A workspace's webhook endpoints; every route with an id answers 404 for another workspace's. */
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  // Create and rotate answer with a secret: they forbid caching themselves, not only through the auth guard.
  @Post()
  @HttpCode(201)
  @Header('Cache-Control', 'no-store')
  async create(@Req() req: Request, @Body() body: CreateWebhookDto): Promise<Immutable<WebhookWithSecret>> {
    return toWebhookWithSecret(await this.webhooks.create(authOf(req).workspaceId, body));
  }

  @Get()
  async list(@Req() req: Request): Promise<Immutable<WebhookList>> {
    return toWebhookList(await this.webhooks.list(authOf(req).workspaceId));
  }

  @Get(':webhookId')
  async get(@Req() req: Request, @Param('webhookId') id: string): Promise<Immutable<Webhook>> {
    return toWebhook(await this.webhooks.get(authOf(req).workspaceId, id));
  }

  @Delete(':webhookId')
  @HttpCode(204)
  async remove(@Req() req: Request, @Param('webhookId') id: string): Promise<void> {
    await this.webhooks.remove(authOf(req).workspaceId, id);
  }

  /** `POST /webhooks/{webhookId}:rotate-secret`: the colon is literal, escaped for Express's path syntax. */
  @Post(':webhookId\\:rotate-secret')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  async rotate(@Req() req: Request, @Param('webhookId') id: string): Promise<Immutable<WebhookWithSecret>> {
    return toWebhookWithSecret(await this.webhooks.rotate(authOf(req).workspaceId, id));
  }

  @Get(':webhookId/deliveries')
  async deliveries(@Req() req: Request, @Param('webhookId') id: string): Promise<Immutable<WebhookDeliveryList>> {
    return toWebhookDeliveryList(await this.webhooks.deliveries(authOf(req).workspaceId, id));
  }
}
