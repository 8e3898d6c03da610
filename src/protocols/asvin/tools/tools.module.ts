import { Module } from '@nestjs/common';
import { ToolsController } from './tools.controller.js';
import { ToolsService } from './tools.service.js';

/** The tools service (`TOOLS_URL`): TLS fingerprints for devices that pin them. */
@Module({
  controllers: [ToolsController],
  providers: [ToolsService],
})
export class ToolsModule {}
