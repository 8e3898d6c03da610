import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * The message object (docs/device-interface.md "Message object"): the outcome of many device endpoints and
 * the body of every non-2xx answer (docs/decisions.md §3).
 */
export class MessageResponse {
  /** Outcome or error text; the exact texts are listed per endpoint. */
  @ApiProperty({ description: 'Outcome or error text; the exact texts are listed per endpoint and status.', example: 'Device inserted!' })
  message: string;
}

/**
 * A 400 of the operator API: the message, and the request field it is about when it is about
 * one (a body field, a query parameter or a path parameter, as the request spells it), so a form
 * can show the message at that field. The device-facing components never send `field`.
 */
export class FieldMessageResponse {
  @ApiProperty({
    description: 'what is wrong, in words, naming the field; the exact texts are listed per endpoint',
    example: 'success_threshold must be a share from 0 to 1',
  })
  message: string;

  @ApiPropertyOptional({
    description:
      'the request field the message is about, as the request spells it: a body field, a query parameter or a path parameter ' +
      '(a field inside an object as a dotted path); absent when the message is about no single field (malformed JSON, an empty body)',
    example: 'success_threshold',
  })
  field?: string;
}
