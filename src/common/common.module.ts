import { Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock.js';

/** Process-wide pieces every module may inject: the clock. */
@Global()
@Module({ providers: [{ provide: Clock, useClass: SystemClock }], exports: [Clock] })
export class CommonModule {}
