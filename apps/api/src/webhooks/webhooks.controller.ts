import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { authOf } from '@wrs/auth';
import type { WebhookDeliverySummary, WebhookSummary } from '@wrs/persistence';
import type { Request } from 'express';
import { CreateWebhookDto } from './create-webhook.dto';
import { WebhooksService, type WebhookWithSecret } from './webhooks.service';

/** A workspace's webhook endpoints; every route with an id answers 404 for another workspace's. */
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  create(@Req() req: Request, @Body() body: CreateWebhookDto): Promise<WebhookWithSecret> {
    return this.webhooks.create(authOf(req).workspaceId, body);
  }

  @Get()
  async list(@Req() req: Request): Promise<{ items: WebhookSummary[] }> {
    return { items: await this.webhooks.list(authOf(req).workspaceId) };
  }

  @Get(':webhookId')
  get(@Req() req: Request, @Param('webhookId') id: string): Promise<WebhookSummary> {
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
  rotate(@Req() req: Request, @Param('webhookId') id: string): Promise<WebhookWithSecret> {
    return this.webhooks.rotate(authOf(req).workspaceId, id);
  }

  @Get(':webhookId/deliveries')
  async deliveries(@Req() req: Request, @Param('webhookId') id: string): Promise<{ items: WebhookDeliverySummary[] }> {
    return { items: await this.webhooks.deliveries(authOf(req).workspaceId, id) };
  }
}
