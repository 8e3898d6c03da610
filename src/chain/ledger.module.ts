import { Module } from '@nestjs/common';
import { LedgerService } from './ledger.service.js';

/** The ledger itself, for every module that records state changes. */
@Module({ providers: [LedgerService], exports: [LedgerService] })
export class LedgerModule {}
