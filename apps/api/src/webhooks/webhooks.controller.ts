import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { authOf } from '@wrs/auth';
import type { Immutable, ItemList, Webhook, WebhookDeliveryList, WebhookWithSecret } from '@wrs/contracts/types';
import type { Request } from 'express';
import { CreateWebhookDto } from './create-webhook.dto';
import { WebhooksService } from './webhooks.service';

/** A workspace's webhook endpoints; every route with an id answers 404 for another workspace's. */
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  create(@Req() req: Request, @Body() body: CreateWebhookDto): Promise<Immutable<WebhookWithSecret>> {
    return this.webhooks.create(authOf(req).workspaceId, body);
  }

  @Get()
  async list(@Req() req: Request): Promise<Immutable<ItemList<Webhook>>> {
    return { items: await this.webhooks.list(authOf(req).workspaceId) };
  }

  @Get(':webhookId')
  get(@Req() req: Request, @Param('webhookId') id: string): Promise<Immutable<Webhook>> {
    return this.webhooks.get(authOf(req).workspaceId, id);
  }

  @Delete(':webhookId')
  @HttpCode(204)
  async remove(@Req() req: Request, @Param('webhookId') id: string): Promise<void> {
    await this.webhooks.remove(authOf(req).workspaceId, id);
  }

  /** `POST /webhooks/{webhookId}:rotate-secret`: the colon is literal, escaped for Express's path syntax. */
  @Post(':webhookId\\:rotate-secret')
  @HttpCode(200)
  rotate(@Req() req: Request, @Param('webhookId') id: string): Promise<Immutable<WebhookWithSecret>> {
    return this.webhooks.rotate(authOf(req).workspaceId, id);
  }

  @Get(':webhookId/deliveries')
  async deliveries(@Req() req: Request, @Param('webhookId') id: string): Promise<Immutable<WebhookDeliveryList>> {
    return { items: await this.webhooks.deliveries(authOf(req).workspaceId, id) };
  }
}
