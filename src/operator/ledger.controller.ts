import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { LedgerService } from '#src/chain/ledger.service.js';
import type { Tenant } from '#src/tenant/tenant.entity.js';
import { LedgerEntriesQuery, LedgerEntryPage, LedgerVerifyResponse, ledgerEntryResponse, ledgerVerifyResponse } from './dto/ledger.dto.js';
import { pageAnswer, sliceOf } from './dto/page-answer.js';
import { INVALID_OPERATOR_TOKEN, OperatorTokenGuard } from './operator-token.guard.js';
import { OptionalTenantPipe } from './tenant.pipe.js';

/** The hash-chained ledger under `OPERATOR_URL` (CONTRACT.md §7, §9): verify it and read it. */
@ApiTags('ledger')
@ApiBearerAuth('operatorToken')
@ApiUnauthorizedResponse({ description: INVALID_OPERATOR_TOKEN })
@UseGuards(OperatorTokenGuard)
@Controller('ledger')
export class LedgerController {
  constructor(private readonly ledger: LedgerService) {}

  /**
   * `GET /ledger/verify` → 200 `{ok, entries, head, first_break}`: the chain recomputed with the
   * same {@link LedgerService.verify} as `firmledger ledger verify`. A broken chain is still 200,
   * with `ok: false` and the first entry that does not match.
   */
  @Get('verify')
  @ApiOperation({ summary: 'Recompute the hash chain and name the first entry that does not match' })
  @ApiOkResponse({ type: LedgerVerifyResponse })
  async verify(): Promise<LedgerVerifyResponse> {
    return ledgerVerifyResponse(await this.ledger.verify());
  }

  /** `GET /ledger/entries?page&per_page&tenant` → 200 one page of entries in sequence order; 400; 404 `Tenant "x" not found`. */
  @Get('entries')
  @ApiOperation({ summary: 'Ledger entries in sequence order, optionally of one tenant' })
  @ApiOkResponse({ type: LedgerEntryPage })
  @ApiBadRequestResponse({ description: 'per_page must be at most 500 (and the like, naming the parameter)' })
  @ApiNotFoundResponse({ description: 'Tenant "acme" not found' })
  async entries(
    @Query() query: LedgerEntriesQuery,
    @Query('tenant', OptionalTenantPipe) tenant: Tenant | undefined,
  ): Promise<LedgerEntryPage> {
    return pageAnswer(await this.ledger.page(tenant?.id, sliceOf(query)), query, ledgerEntryResponse);
  }
}
