import { Module } from '@nestjs/common';
import { RunCommandHandler, RunEventStore } from '@wrs/messaging';
import { decisionConflicts } from '@wrs/observability';
import { RunCancelService } from './run-cancel.service';
import { RunListService } from './run-list.service';
import { RunWaits } from './run-waits';
import { RunsController } from './runs.controller';
import { RunsService } from './runs.service';
import { UnprojectedRuns } from './unprojected-runs';

@Module({
  controllers: [RunsController],
  providers: [
    RunsService,
    RunCancelService,
    RunWaits,
    RunListService,
    UnprojectedRuns,
    // The api decides cancels itself: load, decide, append, again on a conflict.
    {
      provide: RunCommandHandler,
      useFactory: (events: RunEventStore) => new RunCommandHandler(events, () => decisionConflicts.inc()),
      inject: [RunEventStore],
    },
  ],
})
export class RunsModule {}
