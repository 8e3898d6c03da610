import type { Type as Class } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsOptional,
  IsString,
  Length,
  Validate,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { wholeNumberMessages, WholeNumberQueryField } from '#src/platform/common/dto-fields.js';
import { MAX_ID } from '#src/platform/common/input-rules.js';
import type { KeysetSlice, Slice } from '#src/platform/common/paging.js';

/** Largest `per_page` a list answers with. */
export const MAX_PER_PAGE = 500;

/**
 * Largest `page`: the rows it skips, `(page - 1) × per_page`, stay far inside what both engines
 * take as an offset (and exact as a JavaScript number).
 */
export const MAX_PAGE = MAX_ID;

/** 400 texts of bad paging parameters. */
export const PageMessages = {
  page: wholeNumberMessages('page', MAX_PAGE),
  perPage: wholeNumberMessages('per_page', MAX_PER_PAGE),
} as const;

/**
 * `?page=&per_page=` of every operator list: 1-based page, 1..500 items per page (default 50).
 * A non-number is named as such before the bounds are checked ({@link WholeNumberQueryField}).
 */
export class PageQuery {
  @ApiPropertyOptional({ description: '1-based page number', type: 'integer', example: 1, default: 1, minimum: 1, maximum: MAX_PAGE })
  @IsOptional()
  @WholeNumberQueryField(MAX_PAGE, PageMessages.page)
  page: number = 1;

  @ApiPropertyOptional({ description: 'items per page', type: 'integer', example: 50, default: 50, minimum: 1, maximum: MAX_PER_PAGE })
  @IsOptional()
  @WholeNumberQueryField(MAX_PER_PAGE, PageMessages.perPage)
  per_page: number = 50;

  /** Rows to skip for this page. */
  get offset(): number {
    return (this.page - 1) * this.per_page;
  }
}

/** One page of a list: `{"items":[...],"page":1,"per_page":50,"total":123}`. */
export interface Page<T> {
  items: T[];
  page: number;
  per_page: number;
  /** Items across all pages. */
  total: number;
}

/** 400 texts of a keyset cursor (docs/decisions.md §9). */
export const CursorMessages = {
  after: 'after must be 1 to 256 characters: the `next` of the page before',
  afterWithPage: 'after and page exclude each other: page by cursor (after) or by number (page)',
} as const;

/** `after` holds only without a `page` past the first: a cursor page has no number. */
@ValidatorConstraint({ name: 'afterWithoutPage' })
class AfterWithoutPage implements ValidatorConstraintInterface {
  validate(_value: unknown, args: ValidationArguments): boolean {
    return (args.object as PageQuery).page === 1;
  }
  defaultMessage(): string {
    return CursorMessages.afterWithPage;
  }
}

/**
 * `?page=&per_page=`, or `?after=&per_page=`, of a list ordered by a device identifier (the device
 * list, a group's members; docs/decisions.md §9): `after` is the `next` of the page before, and
 * returns the rows whose identifier sorts after it. A cursor page costs the same at any depth (an
 * offset `page` far down reads every row before it), and rows added or removed meanwhile do not
 * shift the pages. Not with `page` past 1.
 */
export class CursorPageQuery extends PageQuery {
  @ApiPropertyOptional({
    description:
      'keyset cursor: the page of rows whose identifier sorts after this one, i.e. the `next` of the page before. ' +
      'Paging by cursor costs the same at any depth (an offset `page` far down reads every row before it); ' +
      'rows added or removed meanwhile do not shift the pages. Not with `page` past 1.',
    example: 'AC:67:B2:01:02:03',
  })
  @IsOptional()
  @Validate(AfterWithoutPage)
  @Length(1, 256, { message: CursorMessages.after })
  @IsString({ message: CursorMessages.after })
  after?: string;

  /** The rows the service returns: by offset, or after the cursor. */
  slice(): KeysetSlice {
    return { offset: this.after === undefined ? this.offset : 0, limit: this.per_page, after: this.after };
  }
}

/** The rows a paged query asks services for. */
export function sliceOf(query: PageQuery): Slice {
  return { offset: query.offset, limit: query.per_page };
}

/** Wraps a page's items with the paging of `query`. */
export function pageOf<T>(items: T[], total: number, query: PageQuery): Page<T> {
  return { items, page: query.page, per_page: query.per_page, total };
}

/**
 * The documented class of one list's page answer, keys in the order {@link pageOf} writes them:
 * `items`, then `page`, `per_page`, `total`. A page DTO extends it: `class TenantPage extends
 * PageOf(TenantResponse, {...}) {}` (the subclass's name is the schema's).
 * @param item the class of the items.
 * @param items description and example of the `items` array.
 */
export function PageOf<T>(item: Class<T>, items: { description: string; example: T[] }): Class<Page<T>> {
  class PageOfItems implements Page<T> {
    @ApiProperty({ type: [item], description: items.description, example: items.example })
    items: T[];

    @ApiProperty({ description: '1-based page number', example: 1 })
    page: number;

    @ApiProperty({ description: 'items per page', example: 50 })
    per_page: number;

    @ApiProperty({ description: 'items across all pages', example: 123 })
    total: number;
  }
  return PageOfItems;
}
