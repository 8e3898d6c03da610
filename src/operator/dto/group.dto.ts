import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMinSize, IsArray, IsString } from 'class-validator';
import { OptionalField } from '#src/platform/common/dto-fields.js';
import { PageOf } from './paging.dto.js';

const MACS_MESSAGE = 'macs must be an array of mac strings';

/**
 * Body of `POST /tenants/:tenant/groups`. Bodies are at most 16 KiB (about 700 macs); add more
 * members with further requests.
 */
export class CreateGroupDto {
  @ApiProperty({
    description: 'group name, unique in the tenant: 1 to 128 characters, not only digits',
    example: 'field-test',
    minLength: 1,
    maxLength: 128,
  })
  @IsString({ message: 'name must be a string' })
  name: string;

  @ApiPropertyOptional({
    description: 'initial members: hardware addresses in any accepted notation (docs/decisions.md §6); devices may register later',
    example: ['AC:67:B2:01:02:03', 'ac-67-b2-01-02-04'],
    type: [String],
  })
  @OptionalField()
  @IsString({ each: true, message: MACS_MESSAGE })
  @IsArray({ message: MACS_MESSAGE })
  macs?: string[];

  @ApiPropertyOptional({
    description:
      'makes the group dynamic (docs/decisions.md §10.3): its members are the devices that match this filter, now and later; ' +
      'at most 1024 characters; a filter that does not parse is a 400 naming `filter` and the column',
    example: 'device_type = ESP32 and attribute.hw_rev = 3 and not label.site = lab',
    maxLength: 1024,
  })
  @OptionalField()
  @IsString({ message: 'filter must be a string' })
  filter?: string;
}

/** Body of `PUT /tenants/:tenant/groups/:group/filter`. */
export class GroupFilterDto {
  @ApiProperty({
    description: "the dynamic group's new filter (docs/decisions.md §10.3)",
    example: 'device_type = ESP32 and label.site = field',
    maxLength: 1024,
  })
  @IsString({ message: 'filter must be a string' })
  filter: string;
}

/** Body of `POST .../members` (add) and `POST .../members/remove`. At most 16 KiB (about 700 macs). */
export class GroupMembersDto {
  @ApiProperty({
    description: 'hardware addresses in any accepted notation (docs/decisions.md §6), canonicalized; at least one',
    example: ['AC:67:B2:01:02:03', 'ac67.b201.0204'],
    type: [String],
    minItems: 1,
  })
  @ArrayMinSize(1, { message: 'macs must name at least one mac' })
  @IsString({ each: true, message: MACS_MESSAGE })
  @IsArray({ message: MACS_MESSAGE })
  macs: string[];
}

/** A device group (rollouts target groups). */
export class GroupResponse {
  @ApiProperty({ description: 'group id', example: 2 })
  id: number;

  @ApiProperty({ description: 'group name', example: 'field-test' })
  name: string;

  @ApiProperty({ description: 'member count (macs, registered or not)', example: 100 })
  members: number;

  @ApiProperty({
    description:
      "a dynamic group's filter (its members are the devices that match it now, docs/decisions.md §10.3); null for a static group",
    example: null,
    nullable: true,
    type: String,
  })
  filter: string | null;

  @ApiProperty({ description: 'creation time, ISO 8601 UTC', example: '2026-11-21T10:00:00.000Z' })
  created_at: string;
}

/** One page of groups. */
export class GroupPage extends PageOf(GroupResponse, {
  description: 'groups by id',
  example: [{ id: 2, name: 'field-test', members: 100, filter: null, created_at: '2026-11-21T10:00:00.000Z' }],
}) {}

/** A member of a group. */
export class GroupMemberResponse {
  @ApiProperty({ description: 'hardware address, canonical', example: 'AC:67:B2:01:02:03' })
  mac: string;

  @ApiProperty({ description: 'whether a device of the tenant has registered with this mac', example: true })
  registered: boolean;
}

/** One page of a group's members, by mac. */
export class GroupMemberPage extends PageOf(GroupMemberResponse, {
  description: 'members by mac',
  example: [{ mac: 'AC:67:B2:01:02:03', registered: true }],
}) {
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'cursor of the page after this one: the identifier of its last member, to pass as `after`; `null` on the last page. ' +
      'With `after`, `page` is 1 (a cursor page has no number) and `total` still counts every member.',
    example: 'AC:67:B2:01:02:03',
  })
  next: string | null;
}

/** A group with one page of its members (`?page|after&per_page` page the members). */
export class GroupDetailResponse extends GroupResponse {
  @ApiProperty({
    type: GroupMemberPage,
    description: 'one page of the members, by mac',
    example: { items: [{ mac: 'AC:67:B2:01:02:03', registered: true }], page: 1, per_page: 50, total: 100, next: 'AC:67:B2:01:02:03' },
  })
  member_macs: GroupMemberPage;
}
