import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock.js';

/** Process-wide pieces every module may inject: the clock (tests hand in a fixed one). */
@Global()
@Module({})
export class CommonModule {
  static forRoot(clock: Clock = new SystemClock()): DynamicModule {
    return { module: CommonModule, providers: [{ provide: Clock, useValue: clock }], exports: [Clock] };
  }
}
