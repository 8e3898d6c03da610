import { Module } from '@nestjs/common';
import { OperatorAccessModule } from './operator-access.module.js';
import { SessionController } from './session.controller.js';

/** Console sessions under `OPERATOR_URL`: sign in with an operator account, see who is signed in, sign out. */
@Module({
  imports: [OperatorAccessModule],
  controllers: [SessionController],
})
export class SessionModule {}
