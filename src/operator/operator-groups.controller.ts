import { applyDecorators, Body, Controller, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiOperatorAuth, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { GroupService } from '#src/domain/group/group.service.js';
import type { Tenant } from '#src/domain/tenant/tenant.entity.js';
import {
  CreateGroupDto,
  GroupDetailResponse,
  GroupFilterDto,
  GroupMembersDto,
  GroupPage,
  GroupResponse,
} from '#src/operator/dto/group.dto.js';
import { CursorMessages, CursorPageQuery, PageQuery, sliceOf } from '#src/operator/dto/paging.dto.js';
import { ApiListQueryErrors, ApiOperatorChange, ApiTenantNotFound, ApiTenantParam, OperatorExamples } from './operator-docs.js';
import { INVALID_OPERATOR_TOKEN, OperatorActor, OperatorTokenGuard } from './operator-token.guard.js';
import { SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { TenantPipe } from './tenant.pipe.js';
import { groupDetailResponse, groupResponse, pageAnswer } from './operator-responses.js';

/** The `:group` path parameter. */
const ApiGroupParam = (): MethodDecorator => ApiParam({ name: 'group', description: 'Group id (digits) or name.', example: 'field-test' });

/** 404 of an operation on one group. */
const ApiGroupNotFound = (): MethodDecorator =>
  ApiTenantNotFound('the tenant has no group with this id or name', OperatorExamples.groupNotFound);

/**
 * The documents of a change of a group's members by a `{macs}` body: 200 the group with its new
 * member count; 400 naming the first mac that is not a hardware address (nothing changes); 404; 403.
 */
const ApiMembersChange = (): MethodDecorator =>
  applyDecorators(
    ApiGroupParam(),
    ApiOkResponse({ type: GroupResponse, description: 'The group with its new member count.' }),
    ApiJsonBodyErrors([OperatorExamples.groupMacs, OperatorExamples.groupNoMacs, OperatorExamples.badMember]),
    ApiGroupNotFound(),
    ApiMessageResponse(
      409,
      'The group is dynamic (docs/decisions.md §10.3).',
      'Group "esp32-rev3" is dynamic: its members are the devices that match its filter',
    ),
    ApiOperatorChange(),
  );

/**
 * Device groups of a tenant and their membership by mac under `OPERATOR_URL` (docs/decisions.md §9),
 * through the {@link GroupService} the CLI's `group` commands use. Every change is on the ledger.
 */
@ApiTags('Groups')
@ApiOperatorAuth(INVALID_OPERATOR_TOKEN, SESSION_ENDED)
@ApiServerError()
@ApiTenantParam()
@UseGuards(OperatorTokenGuard)
@Controller('tenants/:tenant/groups')
export class OperatorGroupsController {
  constructor(private readonly groups: GroupService) {}

  /**
   * `POST /tenants/:tenant/groups` `{name, macs?, filter?}` → 201 group (with `filter`: dynamic, docs/decisions.md §10.3);
   * 400 bad name, mac or filter (named); 404 tenant; 409 `Group "x" exists`.
   */
  @Post()
  @ApiOperation({
    summary: 'Create a group, optionally with initial members, or a dynamic group with a filter',
    description:
      'A mac that is not a hardware address is named in the 400 answer and no group is created. With `filter` the group is ' +
      'dynamic: its members are the devices that match the filter now and later (docs/decisions.md §10.3); ' +
      'a filter that does not parse is a 400 naming `filter` and the column.',
  })
  @ApiCreatedResponse({ type: GroupResponse, description: 'The new group.' })
  @ApiJsonBodyErrors([
    'name must be a string',
    OperatorExamples.groupName,
    OperatorExamples.groupMacs,
    OperatorExamples.badMember,
    'filter: Expected "!=", "=", or "~" but end of input found. (at column 13)',
  ])
  @ApiTenantNotFound()
  @ApiMessageResponse(409, 'The tenant has a group with this name.', OperatorExamples.groupExists)
  @ApiOperatorChange()
  async create(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Body() body: CreateGroupDto,
    @OperatorActor() actor: Actor,
  ): Promise<GroupResponse> {
    return groupResponse(await this.groups.create(tenant.id, body.name, body.macs, actor, body.filter));
  }

  /** `PUT /tenants/:tenant/groups/:group/filter` `{filter}` → 200 dynamic group, members recomputed; 400 named `filter`; 404; 409 static group. */
  @Put(':group/filter')
  @ApiOperation({
    summary: "Set a dynamic group's filter; its members are recomputed",
    description:
      'Devices that match join (targets of the last wave of running rollouts to the group), members that no longer match leave ' +
      '(docs/decisions.md §10.3). A static group answers 409.',
  })
  @ApiGroupParam()
  @ApiOkResponse({ type: GroupResponse, description: 'The group with its new member count.' })
  @ApiJsonBodyErrors(['filter must be a string', 'filter: Expected "!=", "=", or "~" but end of input found. (at column 13)'])
  @ApiGroupNotFound()
  @ApiMessageResponse(409, 'The group is static.', 'Group "field-test" is static: its members are set by identifier')
  @ApiOperatorChange()
  async setFilter(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('group') group: string,
    @Body() body: GroupFilterDto,
    @OperatorActor() actor: Actor,
  ): Promise<GroupResponse> {
    return groupResponse(await this.groups.setFilter(tenant.id, group, body.filter, actor));
  }

  /** `GET /tenants/:tenant/groups?page&per_page` → 200 one page of groups by id, with member counts. */
  @Get()
  @ApiOperation({ summary: "List a tenant's groups with member counts" })
  @ApiOkResponse({ type: GroupPage, description: 'One page of groups, by id.' })
  @ApiListQueryErrors()
  @ApiTenantNotFound()
  async list(@Param('tenant', TenantPipe) tenant: Tenant, @Query() query: PageQuery): Promise<GroupPage> {
    return pageAnswer(await this.groups.page(tenant.id, sliceOf(query)), query, groupResponse);
  }

  /**
   * `GET /tenants/:tenant/groups/:group?page|after&per_page` (id or name) → 200 group with one page
   * of members by mac and `next`, the cursor of the page after it (`after`, keyset paging,
   * docs/decisions.md §9); 400 naming a bad parameter (also `after` with `page` past 1); 404.
   */
  @Get(':group')
  @ApiOperation({ summary: 'One group with its member count and one page of its members' })
  @ApiGroupParam()
  @ApiOkResponse({ type: GroupDetailResponse, description: 'The group; `page` or `after`, and `per_page`, page its members.' })
  @ApiListQueryErrors(CursorMessages.after, CursorMessages.afterWithPage)
  @ApiGroupNotFound()
  async get(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('group') group: string,
    @Query() query: CursorPageQuery,
  ): Promise<GroupDetailResponse> {
    return groupDetailResponse(await this.groups.get(tenant.id, group, query.slice()), query);
  }

  /** `POST /tenants/:tenant/groups/:group/members` `{macs}` → 200 group (macs already in it stay); 400 naming a bad mac; 404. */
  @Post(':group/members')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Add members by mac (any notation); devices may register later',
    description: 'Macs already in the group stay. A mac that is not a hardware address is named in the 400 answer and nothing changes.',
  })
  @ApiMembersChange()
  async addMembers(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('group') group: string,
    @Body() body: GroupMembersDto,
    @OperatorActor() actor: Actor,
  ): Promise<GroupResponse> {
    return groupResponse(await this.groups.addMembers(tenant.id, group, body.macs, actor));
  }

  /** `POST /tenants/:tenant/groups/:group/members/remove` `{macs}` → 200 group (macs not in it are ignored); 400; 404. */
  @Post(':group/members/remove')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Remove members by mac (any notation)',
    description: 'Macs not in the group are ignored. A mac that is not a hardware address is named in the 400 answer and nothing changes.',
  })
  @ApiMembersChange()
  async removeMembers(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('group') group: string,
    @Body() body: GroupMembersDto,
    @OperatorActor() actor: Actor,
  ): Promise<GroupResponse> {
    return groupResponse(await this.groups.removeMembers(tenant.id, group, body.macs, actor));
  }
}
