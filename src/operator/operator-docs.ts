import { applyDecorators } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { ApiMessageResponse } from '#src/platform/openapi/api-responses.js';
import { VIEWER_REFUSED } from '#src/domain/access/operator-role.js';
import { CROSS_SITE_REFUSED } from './same-origin.js';
import { PageMessages } from '#src/operator/dto/paging.dto.js';
import { IdParamMessages } from './id-param.pipe.js';

/**
 * Example texts of operator answers the services word with the name, id or mac asked for
 * (`TenantService`, `GroupService`, `RolloutPlanService`), for the documents only.
 */
export const OperatorExamples = {
  tenantNotFound: 'Tenant "acme" not found',
  tenantExists: 'Tenant "acme" exists',
  tenantName: 'name must be 1 to 128 characters without control characters, and not only digits',
  deviceKeyNotFound: 'Device key "3" not found',
  deviceType: 'device_type must be 1 to 64 printable characters, e.g. ESP32',
  groupNotFound: 'Group "field-test" not found',
  groupExists: 'Group "field-test" exists',
  groupName: 'group name must be 1 to 128 characters and not only digits',
  groupMacs: 'macs must be an array of mac strings',
  groupNoMacs: 'macs must name at least one mac',
  /** A member that is not a device identifier: the first bad one is named and nothing changes. */
  badMember: '"AC 67 B2" is not a device identifier: a hardware address (EUI-48 or EUI-64) or a controller id',
  rolloutNotFound: 'Rollout not found',
} as const;

/** The texts of every bad `?page=&per_page=`. */
export const PAGING_MESSAGES = [
  PageMessages.page.whole,
  PageMessages.page.min,
  PageMessages.perPage.whole,
  PageMessages.perPage.min,
  PageMessages.perPage.max,
] as const;

/** The `:tenant` path parameter: a tenant id (digits) or name; `Tenant "x" not found` otherwise. */
export function ApiTenantParam(): MethodDecorator & ClassDecorator {
  return ApiParam({ name: 'tenant', type: String, description: 'Tenant id (digits) or name.', example: 'acme' });
}

/**
 * 404 of a route under `/tenants/:tenant`: no tenant has this id or name (`Tenant "x" not found`,
 * `TenantPipe`), or, where the route names more, that is not the tenant's either.
 * @param orElse the other case, ending the sentence: `the tenant has no group with this id or name`.
 * @param examples the texts of that other case.
 */
export function ApiTenantNotFound(orElse?: string, ...examples: string[]): MethodDecorator {
  const description = orElse === undefined ? 'No tenant has this id or name.' : `No tenant has this id or name, or ${orElse}.`;
  return ApiMessageResponse(404, description, [OperatorExamples.tenantNotFound, ...examples]);
}

/**
 * An `:id` path parameter (decimal digits, at least 1) and its 400 texts.
 * @param description what the id names.
 * @param example an example id.
 */
export function ApiIdParam(description: string, example = 1): MethodDecorator {
  return applyDecorators(
    ApiParam({ name: 'id', type: 'integer', description, example }),
    ApiMessageResponse(400, 'The id is not a whole number of at least 1.', [IdParamMessages.notWhole, IdParamMessages.tooSmall]),
  );
}

/**
 * 400 for a bad query parameter of a list: paging, and the list's own filters.
 * @param filterMessages example texts of the list's filters.
 */
export function ApiListQueryErrors(...filterMessages: string[]): MethodDecorator {
  return ApiMessageResponse(400, 'A paging parameter or filter is malformed or out of bounds (the message names it).', [
    ...PAGING_MESSAGES,
    ...filterMessages,
  ] as [string, ...string[]]);
}

/**
 * An operator change: 403 for an operator with the `viewer` role, and for a console session
 * cookie sent from another site. The operation names who made it on the ledger.
 */
export function ApiOperatorChange(): MethodDecorator {
  return ApiMessageResponse(403, 'The operator has the viewer role (reads only), or a browser sent the session cookie from another site.', [
    VIEWER_REFUSED,
    CROSS_SITE_REFUSED,
  ]);
}
