import { Module } from '@nestjs/common';
import { CheckpointService } from './checkpoint.service.js';
import { LedgerProofService } from './ledger-proof.service.js';
import { LedgerTileService } from './ledger-tile.service.js';
import { LedgerTreeRepository } from './ledger-tree.repository.js';
import { LedgerTreeService } from './ledger-tree.service.js';
import { LedgerRepository } from './ledger.repository.js';
import { LedgerService } from './ledger.service.js';
import { LedgerEntry } from './ledger-entry.entity.js';
import { LedgerCheckpoint, LedgerCosignature, LedgerTreeNode } from './ledger-tree.entity.js';

/**
 * The ledger: hash-chained entries, the Merkle tree over them, signed checkpoints and witness
 * cosignatures, for every module that records state changes or proves them.
 */
@Module({
  providers: [
    LedgerRepository,
    LedgerTreeRepository,
    LedgerTreeService,
    CheckpointService,
    LedgerProofService,
    LedgerTileService,
    LedgerService,
  ],
  exports: [LedgerService, LedgerTreeService, CheckpointService, LedgerProofService, LedgerTileService],
})
export class LedgerModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [LedgerEntry, LedgerCheckpoint, LedgerCosignature, LedgerTreeNode];
}
