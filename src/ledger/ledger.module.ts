import { Module } from '@nestjs/common';
import { LedgerRepository } from './ledger.repository.js';
import { LedgerService } from './ledger.service.js';

/** The ledger itself (entries, hash chain, verification), for every module that records state changes. */
@Module({ providers: [LedgerRepository, LedgerService], exports: [LedgerService] })
export class LedgerModule {}
