import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { LedgerService } from '#src/domain/ledger/ledger.service.js';
import { TufService } from '#src/domain/tuf/tuf.service.js';
import { ApiMessageResponse, ApiOperatorAuth, ApiServerError } from '#src/platform/openapi/api-responses.js';
import type { Tenant } from '#src/domain/tenant/tenant.entity.js';
import { LEDGER_ORDER_MESSAGE, LedgerEntriesQuery, LedgerEntryPage, LedgerVerifyResponse } from '#src/operator/dto/ledger.dto.js';
import { ApiListQueryErrors, OperatorExamples } from './operator-docs.js';
import { INVALID_OPERATOR_TOKEN, OperatorTokenGuard } from './operator-token.guard.js';
import { SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { OptionalTenantPipe } from './tenant.pipe.js';
import { ledgerEntryResponse, ledgerVerifyResponse, pageAnswer } from './operator-responses.js';
import { sliceOf } from '#src/operator/dto/paging.dto.js';

/** The hash-chained ledger under `OPERATOR_URL` (docs/decisions.md §7, §9): verify it and read it. */
@ApiTags('Ledger')
@ApiOperatorAuth(INVALID_OPERATOR_TOKEN, SESSION_ENDED)
@ApiServerError()
@UseGuards(OperatorTokenGuard)
@Controller('ledger')
export class OperatorLedgerController {
  constructor(
    private readonly ledger: LedgerService,
    private readonly tuf: TufService,
  ) {}

  /**
   * `GET /ledger/verify` → 200 `{ok, entries, head, first_break, …, tuf}`: the chain recomputed with the
   * same {@link LedgerService.verify} as `firmledger ledger verify`, and the TUF metadata checked
   * ({@link TufService.verify}). A broken chain is still 200, with `ok: false` and the first entry
   * that does not match.
   */
  @Get('verify')
  @ApiOperation({
    summary: 'Recompute the hash chain and name the first entry that does not match; check the TUF metadata',
    description: 'A broken chain is still 200, with `ok: false` and `first_break` (`tuf.first_break` for the TUF metadata).',
  })
  @ApiOkResponse({ type: LedgerVerifyResponse, description: 'The outcome of the check.' })
  async verify(): Promise<LedgerVerifyResponse> {
    return ledgerVerifyResponse(await this.ledger.verify(), await this.tuf.verify());
  }

  /**
   * `GET /ledger/entries?page&per_page&tenant&order` → 200 one page of entries by sequence number
   * (oldest first; `order=desc`: newest first), each naming who made it; 400; 404 `Tenant "x" not found`.
   */
  @Get('entries')
  @ApiOperation({ summary: 'Ledger entries by sequence number, optionally of one tenant, oldest or newest first' })
  @ApiOkResponse({ type: LedgerEntryPage, description: 'One page of entries, in sequence order.' })
  @ApiListQueryErrors('tenant must be 1 to 128 characters', LEDGER_ORDER_MESSAGE)
  @ApiMessageResponse(404, 'The `tenant` filter names no tenant.', OperatorExamples.tenantNotFound)
  async entries(
    @Query() query: LedgerEntriesQuery,
    @Query('tenant', OptionalTenantPipe) tenant: Tenant | undefined,
  ): Promise<LedgerEntryPage> {
    return pageAnswer(await this.ledger.page(tenant?.id, sliceOf(query), query.order), query, ledgerEntryResponse);
  }
}
