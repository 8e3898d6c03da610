import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiMessageResponse } from '#src/platform/openapi/api-responses.js';
import { CheckpointMessages } from '#src/domain/ledger/checkpoint.service.js';
import { ConsistencyProofResponse, ProofParamMessages } from '#src/adapters/ledger/dto/proof.dto.js';
import { ProofMessages } from '#src/domain/ledger/ledger-proof.service.js';

/*
 * The documents of the ledger's proof routes, written once for both faces of the Merkle log: the
 * public one on the blockchain component (`TransparencyController`) and the operators' one
 * (`OperatorLedgerProofController`). The rules behind them are `LedgerProofService`'s (RFC 9162)
 * and `CheckpointService`'s (C2SP tlog-checkpoint).
 */

/** 404 of the published checkpoint: a witness quorum is required and no checkpoint has it yet. */
export function ApiCheckpointNotWitnessed(): MethodDecorator {
  return ApiMessageResponse(404, 'A witness quorum is required and no checkpoint has it yet.', CheckpointMessages.notWitnessed(2));
}

/**
 * The errors of an inclusion proof of entry `:seq` against `?tree_size`: 400 for a bad sequence
 * number or size (or one beyond the tree), 404 for no such entry, 409 for an entry newer than the
 * published checkpoint.
 */
export function ApiInclusionProofErrors(): MethodDecorator {
  return applyDecorators(
    ApiMessageResponse(400, 'A bad sequence number or tree size.', [
      ProofParamMessages.seq,
      ProofParamMessages.treeSize.whole,
      ProofMessages.sizeBeyondTree(9, 8),
    ]),
    ApiMessageResponse(404, 'No such entry.', ProofMessages.entryNotFound(9)),
    ApiMessageResponse(409, 'The entry is newer than the published checkpoint.', ProofMessages.beyondCheckpoint(9, 8)),
  );
}

/**
 * A consistency proof between `?from` and `?to` (default the published checkpoint's size):
 * its operation, 200 {@link ConsistencyProofResponse}, and 400 for sizes outside 1 ≤ from ≤ to ≤ the tree.
 */
export function ApiConsistencyProof(): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary: 'Consistency proof between two tree sizes (RFC 9162); `to` defaults to the published checkpoint' }),
    ApiOkResponse({ type: ConsistencyProofResponse, description: 'The proof and both roots.' }),
    ApiMessageResponse(400, 'Sizes outside 1 ≤ from ≤ to ≤ the tree.', [
      ProofParamMessages.fromRequired,
      ProofParamMessages.from.whole,
      ProofMessages.fromAfterTo(8, 4),
      ProofMessages.sizeBeyondTree(9, 8),
    ]),
  );
}
