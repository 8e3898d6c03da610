import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { GroupService } from '#src/rollout/group.service.js';
import type { Tenant } from '#src/tenant/tenant.entity.js';
import {
  CreateGroupDto,
  GroupDetailResponse,
  GroupMembersDto,
  GroupPage,
  GroupResponse,
  groupDetailResponse,
  groupResponse,
} from './dto/group.dto.js';
import { pageAnswer, sliceOf } from './dto/page-answer.js';
import { PageQuery } from './dto/paging.dto.js';
import { INVALID_OPERATOR_TOKEN, OperatorTokenGuard } from './operator-token.guard.js';
import { TenantPipe } from './tenant.pipe.js';

const BAD_MAC = '"AC:67-B2" is not a hardware address (EUI-48 or EUI-64): names the first bad mac; nothing is changed';

/**
 * Device groups of a tenant and their membership by mac under `OPERATOR_URL` (CONTRACT.md §9),
 * through the {@link GroupService} the CLI's `group` commands use. Every change is on the ledger.
 */
@ApiTags('groups')
@ApiBearerAuth('operatorToken')
@ApiUnauthorizedResponse({ description: INVALID_OPERATOR_TOKEN })
@ApiParam({ name: 'tenant', description: 'tenant id or name', example: 'acme' })
@UseGuards(OperatorTokenGuard)
@Controller('tenants/:tenant/groups')
export class GroupsController {
  constructor(private readonly groups: GroupService) {}

  /** `POST /tenants/:tenant/groups` `{name, macs?}` → 201 group; 400 bad name or mac (named); 404 tenant; 409 `Group "x" exists`. */
  @Post()
  @ApiOperation({ summary: 'Create a group, optionally with initial members' })
  @ApiCreatedResponse({ type: GroupResponse })
  @ApiBadRequestResponse({ description: `group name must be 1 to 128 characters and not only digits | ${BAD_MAC}` })
  @ApiNotFoundResponse({ description: 'Tenant "acme" not found' })
  @ApiConflictResponse({ description: 'Group "field-test" exists' })
  async create(@Param('tenant', TenantPipe) tenant: Tenant, @Body() body: CreateGroupDto): Promise<GroupResponse> {
    return groupResponse(await this.groups.create(tenant.id, body.name, body.macs));
  }

  /** `GET /tenants/:tenant/groups?page&per_page` → 200 one page of groups by id, with member counts. */
  @Get()
  @ApiOperation({ summary: "List a tenant's groups with member counts" })
  @ApiOkResponse({ type: GroupPage })
  @ApiBadRequestResponse({ description: 'per_page must be at most 500 (and the like, naming the parameter)' })
  @ApiNotFoundResponse({ description: 'Tenant "acme" not found' })
  async list(@Param('tenant', TenantPipe) tenant: Tenant, @Query() query: PageQuery): Promise<GroupPage> {
    return pageAnswer(await this.groups.page(tenant.id, sliceOf(query)), query, groupResponse);
  }

  /** `GET /tenants/:tenant/groups/:group?page&per_page` (id or name) → 200 group with one page of members by mac; 404. */
  @Get(':group')
  @ApiOperation({ summary: 'One group with its member count and one page of its members' })
  @ApiParam({ name: 'group', description: 'group id or name', example: 'field-test' })
  @ApiOkResponse({ type: GroupDetailResponse })
  @ApiBadRequestResponse({ description: 'per_page must be at most 500 (and the like, naming the parameter)' })
  @ApiNotFoundResponse({ description: 'Tenant "acme" not found | Group "field-test" not found' })
  async get(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('group') group: string,
    @Query() query: PageQuery,
  ): Promise<GroupDetailResponse> {
    return groupDetailResponse(await this.groups.get(tenant.id, group, sliceOf(query)), query);
  }

  /** `POST /tenants/:tenant/groups/:group/members` `{macs}` → 200 group (macs already in it stay); 400 naming a bad mac; 404. */
  @Post(':group/members')
  @HttpCode(200)
  @ApiOperation({ summary: 'Add members by mac (any notation); devices may register later' })
  @ApiParam({ name: 'group', description: 'group id or name', example: 'field-test' })
  @ApiOkResponse({ type: GroupResponse })
  @ApiBadRequestResponse({ description: `macs must name at least one mac | ${BAD_MAC}` })
  @ApiNotFoundResponse({ description: 'Tenant "acme" not found | Group "field-test" not found' })
  async addMembers(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('group') group: string,
    @Body() body: GroupMembersDto,
  ): Promise<GroupResponse> {
    return groupResponse(await this.groups.addMembers(tenant.id, group, body.macs));
  }

  /** `POST /tenants/:tenant/groups/:group/members/remove` `{macs}` → 200 group (macs not in it are ignored); 400; 404. */
  @Post(':group/members/remove')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove members by mac (any notation)' })
  @ApiParam({ name: 'group', description: 'group id or name', example: 'field-test' })
  @ApiOkResponse({ type: GroupResponse })
  @ApiBadRequestResponse({ description: `macs must name at least one mac | ${BAD_MAC}` })
  @ApiNotFoundResponse({ description: 'Tenant "acme" not found | Group "field-test" not found' })
  async removeMembers(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('group') group: string,
    @Body() body: GroupMembersDto,
  ): Promise<GroupResponse> {
    return groupResponse(await this.groups.removeMembers(tenant.id, group, body.macs));
  }
}
