import { Controller, Get, HttpCode, Post } from '@nestjs/common';

const ANSWER = { ok: true };

/**
 * The framework floor's routes: the paths of `GET /runs/{id}` and `POST /runs`, so routing and the
 * middleware see the same requests, answered without any work of ours (no guard, no body validation).
 */
@Controller('runs')
export class NoopController {
  @Get(':runId')
  read(): typeof ANSWER {
    return ANSWER;
  }

  @Post()
  @HttpCode(201)
  create(): typeof ANSWER {
    return ANSWER;
  }
}
